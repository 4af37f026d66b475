// Golden files, node_exporter's habit: what the agent renders for fixed machines (the seed
// sysroots) and a fixed journal (one finished run of every probe) must equal, byte for byte,
// the files in tests/fixtures/golden. Any change of /metrics, GET /v1/host or `hostprobe cpu`
// fails here until the files are rewritten on purpose: HOSTPROBE_UPDATE_GOLDEN=1 (see
// tests/README.md). Only what differs from run to run is normalized (the version, the build's
// revision, the checkout's path).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

const char* const kMachine = "fargate-e5-2686v4";  // the sysroot the daemon replays

std::string golden_path(const std::string& name) {
    return fixtures_dir() + "/golden/" + name;
}

bool updating_golden_files() {
    const char* update = std::getenv("HOSTPROBE_UPDATE_GOLDEN");
    return update != nullptr && std::string(update) == "1";
}

std::optional<std::string> read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines)
        text += line + "\n";
    return text;
}

// Where two texts first part, for the failure message.
std::string first_difference(const std::string& expected, const std::string& actual) {
    const auto want = lines_of(expected);
    const auto got = lines_of(actual);
    for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
        const std::string a = i < want.size() ? want[i] : "<end of file>";
        const std::string b = i < got.size() ? got[i] : "<end of output>";
        if (a != b)
            return "line " + std::to_string(i + 1) + ":\n  golden: " + a + "\n  actual: " + b;
    }
    return "the texts differ only in their final newline";
}

// Compares `actual` with the golden file `name`; with HOSTPROBE_UPDATE_GOLDEN=1 writes it.
void check_golden(const std::string& name, const std::string& actual) {
    const std::string path = golden_path(name);
    if (updating_golden_files()) {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path, std::ios::binary) << actual;
        MESSAGE("rewrote " << path);
    }
    const auto expected = read_text(path);
    REQUIRE_MESSAGE(expected.has_value(),
                    "no golden file " << path << " (HOSTPROBE_UPDATE_GOLDEN=1 writes it)");
    const bool same = actual == *expected;  // (not the texts themselves in the message)
    CHECK_MESSAGE(same, path << " differs from the output (HOSTPROBE_UPDATE_GOLDEN=1 rewrites it "
                                "when the change is intended), first at "
                             << first_difference(*expected, actual));
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// The checkout's location is not part of the output's contract.
std::string without_checkout_path(const std::string& text) {
    return replace_all(text, fixtures_dir(), "<fixtures>");
}

// What differs between builds and machines that run the tests: the version, the revision and
// the OpenSSL library's version (labels of hostprobe_build_info).
std::string normalized_metrics(const std::string& metrics) {
    static const std::regex build_label(R"re(\b(version|revision|openssl_version)="[^"]*")re");
    return std::regex_replace(without_checkout_path(metrics), build_label, "$1=\"<build>\"");
}

// The text as served (its layout is part of the output), with the version normalized.
std::string normalized_host(const std::string& body) {
    static const std::regex version_member(R"re("hostprobe_version": "[^"]*")re");
    return std::regex_replace(without_checkout_path(body), version_member,
                              "\"hostprobe_version\": \"<build>\"");
}

// A state directory holding the committed journal, verbatim or with each record changed by
// `edit`.
void write_journal(TempTree& state, const std::function<void(json&)>& edit = {}) {
    const auto journal = read_text(golden_path("runs.jsonl"));
    REQUIRE(journal.has_value());
    if (!edit) {
        state.write("runs.jsonl", *journal);
        return;
    }
    std::string lines;
    for (const auto& line : lines_of(*journal)) {
        json record = json::parse(line);
        edit(record);
        lines += record.dump() + "\n";
    }
    state.write("runs.jsonl", lines);
}

std::string get(const Daemon& daemon, const std::string& path) {
    auto reply = daemon.client().Get(path);
    REQUIRE(reply);
    REQUIRE(reply->status == 200);
    return reply->body;
}

Daemon replaying(const TempTree& state) {
    return Daemon({"--sysroot", sysroot(kMachine), "--state-dir", state.root()});
}

// Every metric line (no comment) whose metric name begins with `prefix`.
std::vector<std::string> samples_of(const std::string& metrics, const std::string& prefix) {
    std::vector<std::string> found;
    for (const auto& line : lines_of(metrics))
        if (line.rfind(prefix, 0) == 0) found.push_back(line);
    return found;
}

}  // namespace

TEST_CASE("golden: the journal holds one succeeded run of every probe") {
    const auto journal = read_text(golden_path("runs.jsonl"));
    REQUIRE(journal.has_value());
    std::vector<std::string> probes;
    for (const auto& line : lines_of(*journal)) {
        const json record = json::parse(line);
        CHECK(record["event"] == "finished");
        CHECK(record["run"]["state"] == "succeeded");
        CHECK(record["run"]["result"].is_object());
        probes.push_back(record["run"]["probe"]);
    }
    std::sort(probes.begin(), probes.end());
    CHECK(probes == std::vector<std::string>{"cipher", "cpu", "disk", "files", "system"});
}

TEST_CASE("golden: /metrics and GET /v1/host of a replayed machine and journal") {
    TempTree state;
    write_journal(state);
    const Daemon daemon = replaying(state);
    check_golden("metrics.txt", normalized_metrics(get(daemon, "/metrics")));
    check_golden("host.json", normalized_host(get(daemon, "/v1/host")));
}

TEST_CASE("golden: a damaged cipher result costs only the cipher's result metrics") {
    TempTree state;
    write_journal(state, [](json& record) {
        if (record["run"]["probe"] == "cipher") record["run"]["result"].erase("measurements");
    });
    const Daemon daemon = replaying(state);
    const std::string damaged = normalized_metrics(get(daemon, "/metrics"));
    const auto golden = read_text(golden_path("metrics.txt"));
    REQUIRE(golden.has_value());

    // The cipher probe's own families (hostprobe_cipher_*) are gone, and its collector says so.
    CHECK(samples_of(damaged, "hostprobe_cipher_").empty());
    CHECK_FALSE(samples_of(*golden, "hostprobe_cipher_").empty());
    CHECK(samples_of(damaged, R"(hostprobe_scrape_collector_success{collector="cipher_result"})") ==
          std::vector<std::string>{
              R"(hostprobe_scrape_collector_success{collector="cipher_result"} 0)"});
    // Everything else is as in the golden file: the other probes' results and collectors, the
    // runs, the host.
    std::vector<std::string> expected;
    std::string family;  // the family of the comment lines that follow
    for (const auto& line : lines_of(*golden)) {
        if (line.rfind("# HELP ", 0) == 0) family = line.substr(7, line.find(' ', 7) - 7);
        if (family.rfind("hostprobe_cipher_", 0) == 0) continue;
        if (line == R"(hostprobe_scrape_collector_success{collector="cipher_result"} 1)") {
            expected.push_back(
                R"(hostprobe_scrape_collector_success{collector="cipher_result"} 0)");
            continue;
        }
        expected.push_back(line);
    }
    const auto actual = lines_of(damaged);
    const bool same = actual == expected;
    CHECK_MESSAGE(same, "first at " << first_difference(joined(expected), joined(actual)));
}

TEST_CASE("golden: hostprobe cpu, as text and as JSON, on every seed sysroot") {
    std::vector<std::string> machines;
    for (const auto& entry : std::filesystem::directory_iterator(fixtures_dir() + "/sysroots"))
        if (entry.is_directory()) machines.push_back(entry.path().filename().string());
    std::sort(machines.begin(), machines.end());
    REQUIRE(machines.size() >= 4);
    for (const auto& machine : machines) {
        CAPTURE(machine);
        const auto text = run_to_end(binary(), {"cpu", "--sysroot", sysroot(machine)});
        REQUIRE(text.status.code == 0);
        check_golden("cpu/" + machine + ".txt", without_checkout_path(text.output));
        const auto document =
            run_to_end(binary(), {"cpu", "--json", "--sysroot", sysroot(machine)});
        REQUIRE(document.status.code == 0);
        check_golden("cpu/" + machine + ".json", normalized_host(document.output));
    }
}
