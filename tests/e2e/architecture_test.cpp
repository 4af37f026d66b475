// End to end on the architecture this binary was built for, which CI also runs as arm64 under
// qemu-user (tests/README.md, "arm64 under emulation"): what `hostprobe cpu` can really know about
// the live machine there, and the cipher probe's ciphers computing sound results.
#include <doctest/doctest.h>
#include <sys/utsname.h>

#include <nlohmann/json.hpp>

#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

// What uname(2) answers a process of this build: under qemu-user, the emulated machine.
std::string machine_built_for() {
#if defined(__aarch64__)
    return "aarch64";
#elif defined(__x86_64__)
    return "x86_64";
#else
    utsname name{};
    REQUIRE(::uname(&name) == 0);
    return name.machine;
#endif
}

// The value of the text report's "Architecture:" row, whatever the padding before it.
std::string architecture_row_value(const std::string& report) {
    const std::string key = "Architecture:";
    if (report.rfind(key, 0) != 0) return "";
    const size_t start = report.find_first_not_of(' ', key.size());
    const size_t end = report.find('\n');
    return start < end ? report.substr(start, end - start) : "";
}

json cpu_report_json() {
    const auto report = run_to_end(binary(), {"cpu", "--json"});
    REQUIRE_MESSAGE(report.status.code == 0, report.errors);
    return json::parse(report.output);
}

// `hostprobe run cipher --json` to its end: the run's result object.
json cipher_run_result(const std::vector<std::string>& extra_args) {
    std::vector<std::string> args = {"run",       "cipher", "--block-sizes", "1024",
                                     "--seconds", "0.1",    "--json"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    const auto run = run_to_end(binary(), args, {}, std::chrono::seconds(120));
    REQUIRE_MESSAGE(run.status.code == 0, run.errors);
    const json document = json::parse(run.output);
    REQUIRE(document["state"] == "succeeded");
    return document["result"];
}

void check_sound_measurement(const json& measurement) {
    INFO(measurement.dump());
    CHECK_FALSE(measurement.contains("error"));
    CHECK(measurement["ops"].get<uint64_t>() > 0);
    CHECK(measurement["bytes"] ==
          measurement["ops"].get<uint64_t>() * measurement["block_bytes"].get<uint64_t>());
    CHECK(measurement["seconds"].get<double>() > 0);
    CHECK(measurement["cpu_seconds"].get<double>() > 0);
    // Emulated arm64 manages 30-120 MB/s per CPU second; no real CPU of the last decade is
    // under 1 MB/s or over 1 TB/s. (CPU time, not wall time: a busy machine starves the run.)
    CHECK(measurement["cpu_bytes_per_second"].get<double>() > 1e6);
    CHECK(measurement["cpu_bytes_per_second"].get<double>() < 1e12);
}

}  // namespace

TEST_CASE("architecture: the live report names this build's machine and a budget within its CPUs") {
    const json report = cpu_report_json();
    CHECK(report["cpu"]["architecture"] == machine_built_for());
    const json& budget = report["cpu_budget"];
    CHECK(budget["visible_cpus"].get<int>() >= 1);
    CHECK(budget["cores"].get<double>() > 0);
    CHECK(budget["workers"].get<int>() >= 1);
    CHECK(budget["workers"].get<int>() <= budget["visible_cpus"].get<int>());
    CHECK(report["topology"]["online_cpus"].get<int>() >= budget["visible_cpus"].get<int>());
    if (machine_built_for() != "x86_64") {
        // No CPUID off x86: whatever the hypervisor verdict, it cannot rest on the x86 leaf.
        for (const auto& evidence : report["hypervisor"]["evidence"]) {
            CHECK(evidence.get<std::string>().find("CPUID") == std::string::npos);
        }
    }

    const auto text = run_to_end(binary(), {"cpu"});
    REQUIRE_MESSAGE(text.status.code == 0, text.errors);
    // (The column's width follows the longest key, a vulnerability row's on most live machines.)
    CHECK(architecture_row_value(text.output) == machine_built_for());
}

TEST_CASE("architecture: aes-128-gcm, aes-128-ctr, chacha20 and chacha20-poly1305 run soundly") {
    const json sealed =
        cipher_run_result({"--ciphers", "aes-128-gcm,aes-128-ctr,chacha20,chacha20-poly1305"});
    REQUIRE(sealed["measurements"].size() == 4);
    std::vector<std::string> ciphers;
    for (const auto& measurement : sealed["measurements"]) {
        check_sound_measurement(measurement);
        ciphers.push_back(measurement["cipher"]);
    }
    CHECK(ciphers ==
          std::vector<std::string>{"aes-128-gcm", "aes-128-ctr", "chacha20", "chacha20-poly1305"});

    // Decrypting authenticates each message against the tag encryption made: a cipher that
    // computed wrongly (an emulated instruction, a mis-selected assembly path) fails the run.
    const json opened = cipher_run_result(
        {"--ciphers", "aes-128-gcm,chacha20-poly1305", "--mode", "message", "--decrypt", "true"});
    REQUIRE(opened["measurements"].size() == 2);
    CHECK(opened["decrypt"] == true);
    CHECK(opened["mode"] == "message");
    for (const auto& measurement : opened["measurements"])
        check_sound_measurement(measurement);
}
