// End to end: runs over HTTP against the real daemon, and `hostprobe run` in the foreground.
#include <doctest/doctest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// CPU time the process has used so far (utime+stime in /proc/<pid>/stat), in seconds.
double cpu_seconds(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    if (text.rfind(')') == std::string::npos) return 0;
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int index = 3; fields >> field; ++index) {
        if (index == 14 || index == 15) ticks += std::stod(field);
        if (index == 15) break;
    }
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Waits until the process has used `seconds` of CPU time.
bool wait_for_cpu_seconds(pid_t pid, double seconds, std::chrono::milliseconds deadline) {
    return eventually([&] { return cpu_seconds(pid) >= seconds; }, deadline);
}

// Waits until the process's main thread blocks `signal_number` (SigBlk in /proc/<pid>/status):
// from then on the agent's signal watcher receives it instead of the default action killing
// the process. Slow start-ups (sanitizer builds) otherwise race with the test's signal.
bool wait_for_signal_blocked(pid_t pid, int signal_number, std::chrono::milliseconds deadline) {
    return eventually(
        [&] {
            std::ifstream status("/proc/" + std::to_string(pid) + "/status");
            for (std::string line; std::getline(status, line);) {
                if (line.rfind("SigBlk:", 0) != 0) continue;
                const unsigned long long blocked = std::stoull(line.substr(7), nullptr, 16);
                if ((blocked >> (signal_number - 1)) & 1ULL) return true;
            }
            return false;
        },
        deadline);
}

const char* kShortCipher =
    R"({"probe": "cipher", "params": {"ciphers": ["aes-128-ctr"], "block_sizes": [1024], "seconds": 0.1}})";
const char* kLongCipher =
    R"({"probe": "cipher", "params": {"ciphers": ["aes-128-ctr"], "block_sizes": [1024], "seconds": 60}})";

}  // namespace

TEST_CASE("a cipher run over HTTP: wait for it, read it as JSON, text and metrics") {
    Daemon daemon;
    auto client = daemon.client();
    auto created = client.Post("/v1/runs?wait=60", kShortCipher, "application/json");
    REQUIRE(created);
    CHECK(created->status == 200);
    const json run = json::parse(created->body);
    CHECK(run["state"] == "succeeded");
    CHECK(created->get_header_value("Location") == "/v1/runs/" + run["id"].get<std::string>());
    const json& measurement = run["result"]["measurements"][0];
    CHECK(measurement["cipher"] == "aes-128-ctr");
    CHECK(measurement["bytes_per_second"].get<double>() > 0);
    CHECK(measurement["cpu_bytes_per_second"].get<double>() > 0);

    auto text = client.Get("/v1/runs/" + run["id"].get<std::string>() + "?format=text");
    REQUIRE(text);
    CHECK(text->body.find("The 'numbers' are in 1000s of bytes per second processed.") !=
          std::string::npos);

    auto probes = client.Get("/v1/probes");
    REQUIRE(probes);
    CHECK(json::parse(probes->body)["probes"].size() == 5);

    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->body.find("hostprobe_cipher_throughput_bytes_per_second{cipher=\"aes-128-ctr\","
                             "block_bytes=\"1024\"") != std::string::npos);
    CHECK(metrics->body.find("hostprobe_runs_total{outcome=\"succeeded\",probe=\"cipher\"} 1") !=
          std::string::npos);
    CHECK(metrics->body.find("hostprobe_run_duration_seconds_bucket{probe=\"cipher\"") !=
          std::string::npos);
    CHECK(promtool_accepts(metrics->body));
}

TEST_CASE("a run listing carries the runs' version as its ETag: unchanged, a 304 without a body") {
    Daemon daemon;
    auto client = daemon.client();
    const httplib::Headers gzip{{"Accept-Encoding", "gzip"}};
    auto first = client.Get("/v1/runs?limit=50", gzip);
    REQUIRE(first);
    REQUIRE(first->status == 200);
    const std::string tag = first->get_header_value("ETag");
    CHECK(tag.rfind("W/\"runs-", 0) == 0);
    CHECK(first->get_header_value("Cache-Control") == "no-cache");

    auto same =
        client.Get("/v1/runs?limit=50", {{"Accept-Encoding", "gzip"}, {"If-None-Match", tag}});
    REQUIRE(same);
    CHECK(same->status == 304);
    CHECK(same->body.empty());
    CHECK(same->get_header_value("ETag") == tag);
    auto stale = client.Get("/v1/runs?limit=50", {{"If-None-Match", "W/\"runs-0-0\""}});
    REQUIRE(stale);
    CHECK(stale->status == 200);
    CHECK(json::parse(stale->body)["runs"].empty());

    // A run changes the version: the old tag gets the new list.
    auto created = client.Post("/v1/runs", R"({"probe": "cpu"})", "application/json");
    REQUIRE(created);
    REQUIRE(created->status == 202);
    const std::string id = json::parse(created->body)["id"];
    auto changed = client.Get("/v1/runs?limit=50", {{"If-None-Match", tag}});
    REQUIRE(changed);
    CHECK(changed->status == 200);
    CHECK(changed->get_header_value("ETag") != tag);
    CHECK(json::parse(changed->body)["runs"][0]["id"] == id);
}

TEST_CASE("bad input over HTTP") {
    Daemon daemon;
    auto client = daemon.client();
    auto unknown_cipher = client.Post(
        "/v1/runs", R"({"probe": "cipher", "params": {"ciphers": ["des"]}})", "application/json");
    REQUIRE(unknown_cipher);
    CHECK(unknown_cipher->status == 400);
    CHECK(json::parse(unknown_cipher->body)["error"].get<std::string>().find(
              "valid: aes-128-gcm") != std::string::npos);
    auto unknown_probe = client.Post("/v1/runs", R"({"probe": "gpu"})", "application/json");
    REQUIRE(unknown_probe);
    CHECK(unknown_probe->status == 404);
    CHECK(json::parse(unknown_probe->body)["error"] ==
          "unknown probe 'gpu'; probes: cpu, cipher, disk, files, system");
    auto malformed = client.Post("/v1/runs", "{\"probe\": \"cipher\",", "application/json");
    REQUIRE(malformed);
    CHECK(malformed->status == 400);
    CHECK(json::parse(malformed->body)["error"].get<std::string>().find("malformed JSON at byte") !=
          std::string::npos);
    auto wrong_type = client.Post("/v1/runs", kShortCipher, "text/plain");
    REQUIRE(wrong_type);
    CHECK(wrong_type->status == 415);
    const std::string huge =
        "{\"probe\": \"cipher\", \"pad\": \"" + std::string(70 * 1024, 'x') + "\"}";
    auto too_large = client.Post("/v1/runs", huge, "application/json");
    REQUIRE(too_large);
    CHECK(too_large->status == 413);
    CHECK(json::parse(too_large->body)["status"] == 413);
    auto missing = client.Get("/v1/runs/0000");
    REQUIRE(missing);
    CHECK(missing->status == 404);
    // The daemon keeps serving after all of that.
    auto health = client.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
}

TEST_CASE("DELETE stops a running cipher run within 1 s and keeps its partial result") {
    Daemon daemon;
    auto client = daemon.client();
    auto created = client.Post("/v1/runs", kLongCipher, "application/json");
    REQUIRE(created);
    CHECK(created->status == 202);
    const std::string id = json::parse(created->body)["id"];
    // Wait until it runs (it starts at once: nothing else is queued).
    REQUIRE(eventually([&] { return run_state(client, id) == "running"; }));
    const auto asked = std::chrono::steady_clock::now();
    auto cancelled = client.Delete("/v1/runs/" + id);
    REQUIRE(cancelled);
    CHECK((cancelled->status == 202 || cancelled->status == 200));
    json run;
    do {
        run = json::parse(client.Get("/v1/runs/" + id)->body);
    } while (run["state"] == "running" && std::chrono::steady_clock::now() - asked < 5s);
    CHECK(std::chrono::steady_clock::now() - asked < 1s);
    CHECK(run["state"] == "cancelled");
    CHECK(run["result"]["partial"] == true);
}

TEST_CASE("SIGTERM during a cipher run: exit 0 within 2 s") {
    Daemon daemon;
    auto client = daemon.client();
    auto created = client.Post("/v1/runs", kLongCipher, "application/json");
    REQUIRE(created);
    const std::string id = json::parse(created->body)["id"];
    // The signal must find the run working, not queued: that is what has to end quickly.
    REQUIRE(eventually([&] { return run_state(client, id) == "running"; }));
    daemon.process.signal(SIGTERM);
    const ExitStatus status = daemon.process.wait(5s);
    CHECK(status.exited);
    CHECK(status.code == 0);
    CHECK(status.waited < 2s);
}

TEST_CASE("--run-on-start runs without anyone asking; bad automation flags are usage errors") {
    Daemon daemon({"--run-on-start", "cpu"});
    auto client = daemon.client();
    json runs;
    REQUIRE(eventually([&] {
        runs = json::parse(client.Get("/v1/runs?probe=cpu&state=succeeded")->body)["runs"];
        return !runs.empty();
    }));
    REQUIRE(runs.size() == 1);
    CHECK(runs[0]["trigger"] == "start");
    CHECK(runs[0]["result"]["schema_version"] == 1);

    CHECK(run_to_end(binary(), {"serve", "--schedule", "cipher"}).status.code == 2);
    CHECK(run_to_end(binary(), {"serve", "--schedule", "gpu=1h"}).status.code == 2);
    CHECK(run_to_end(binary(), {"serve", "--run-on-start", "gpu"}).status.code == 2);
    TempTree files;
    files.write("params.json", R"({"cipher": {"seconds": 99}})");
    const auto bad_params =
        run_to_end(binary(), {"serve", "--params-file", files.root() + "/params.json"});
    CHECK(bad_params.status.code == 2);
    CHECK(bad_params.errors.find("'seconds' is 99") != std::string::npos);

    // --params: the same JSON inline, for task definitions that have no file to point at.
    const auto bad_inline =
        run_to_end(binary(), {"serve", "--params", R"({"cipher": {"seconds": 99}})"});
    CHECK(bad_inline.status.code == 2);
    CHECK(bad_inline.errors.find("'seconds' is 99") != std::string::npos);
    CHECK(run_to_end(binary(), {"serve", "--params", "{\"cipher\": 1}"}).status.code == 2);
    CHECK(run_to_end(binary(),
                     {"serve", "--params", "{}", "--params-file", files.root() + "/params.json"})
              .status.code == 2);
    Daemon inline_params(
        {"--run-on-start", "cipher"},
        {{"HOSTPROBE_PARAMS",
          R"({"cipher": {"ciphers": ["chacha20"], "block_sizes": [64], "seconds": 0.1}})"}});
    json started;
    REQUIRE(eventually([&] {
        started = json::parse(
            inline_params.client().Get("/v1/runs?probe=cipher&state=succeeded")->body)["runs"];
        return !started.empty();
    }));
    REQUIRE(started.size() == 1);
    CHECK(started[0]["params"]["ciphers"] == json::array({"chacha20"}));
}

TEST_CASE("hostprobe run: the same probe in the foreground") {
    const auto text = run_to_end(binary(), {"run", "cipher", "--ciphers", "chacha20",
                                            "--block-sizes", "64,1024", "--seconds", "0.1"});
    CHECK(text.status.code == 0);
    CHECK(text.output.find("chacha20") != std::string::npos);
    CHECK(text.output.find("type             64 bytes   1024 bytes") != std::string::npos);
    const auto as_json =
        run_to_end(binary(), {"run", "cipher", "--ciphers=aes-128-gcm", "--block_sizes=16",
                              "--seconds=0.1", "--threads=1", "--json"});
    CHECK(as_json.status.code == 0);
    const json run = json::parse(as_json.output);
    CHECK(run["state"] == "succeeded");
    CHECK(run["trigger"] == "cli");
    CHECK(run["result"]["measurements"][0]["threads"] == 1);
    CHECK(run_to_end(binary(), {"run", "cpu", "--json"}).status.code == 0);
    CHECK(run_to_end(binary(), {"run", "cipher", "--speed", "1"}).status.code == 2);
    CHECK(run_to_end(binary(), {"run", "gpu"}).status.code == 2);
    CHECK(run_to_end(binary(), {"run"}).status.code == 2);
    CHECK(run_to_end(binary(), {"run", "--help"}).output.find("--block-sizes (") !=
          std::string::npos);
}

TEST_CASE("Ctrl-C during hostprobe run cancels and prints the partial result") {
    Process run(binary(), {"run", "cipher", "--ciphers", "aes-128-ctr,chacha20", "--block-sizes",
                           "1024", "--seconds", "0.3,", "--threads", "1"});
    // "0.3," is not a number: a usage error, exit 2, before anything runs.
    CHECK(run.wait(10s).code == 2);

    Process long_run(binary(), {"run", "cipher", "--ciphers", "aes-128-ctr", "--block-sizes",
                                "1024", "--seconds", "60", "--threads", "1"});
    // Interrupt only once SIGINT reaches the watcher and the measurement provably runs: the
    // process has burnt 0.2 s of CPU since (start-up alone can take that under sanitizers).
    REQUIRE(wait_for_signal_blocked(long_run.pid(), SIGINT, 10s));
    REQUIRE(wait_for_cpu_seconds(long_run.pid(), cpu_seconds(long_run.pid()) + 0.2, 10s));
    long_run.signal(SIGINT);
    const ExitStatus status = long_run.wait(5s);
    CHECK(status.code == 130);
    CHECK(long_run.output().find("(partial: the run was cancelled)") != std::string::npos);
}
