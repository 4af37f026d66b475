// --state-dir across real restarts: a clean stop, a kill -9 in the middle of a run, and a torn
// journal line.
#include <doctest/doctest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

json post_and_wait(const Daemon& daemon, const std::string& body) {
    auto response = daemon.client().Post("/v1/runs?wait=60", body, "application/json");
    REQUIRE(response);
    return json::parse(response->body);
}

json runs_of(const Daemon& daemon) {
    return json::parse(daemon.client().Get("/v1/runs")->body)["runs"];
}

}  // namespace

TEST_CASE("a restart brings back the history and the result gauges") {
    TempTree state;
    const std::vector<std::string> args = {"--state-dir", state.root() + "/state"};
    std::string id;
    {
        Daemon first(args);
        const json run = post_and_wait(
            first, R"({"probe": "cipher", "params": {"ciphers": ["chacha20"], "block_sizes": [64],
                       "seconds": 0.1, "threads": 1}})");
        REQUIRE(run["state"] == "succeeded");
        id = run["id"];
        first.process.signal(SIGTERM);
        REQUIRE(first.process.wait(5s).code == 0);
    }
    Daemon second(args);
    const json runs = runs_of(second);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0]["id"] == id);
    CHECK(runs[0]["state"] == "succeeded");
    CHECK(second.client().Get("/v1/runs/" + id + "?format=text")->body.find("chacha20") !=
          std::string::npos);
    const std::string metrics = second.client().Get("/metrics")->body;
    CHECK(metrics.find("hostprobe_cipher_throughput_bytes_per_second{") != std::string::npos);
    CHECK(second.process.errors().find("msg=\"runs restored\"") != std::string::npos);
}

TEST_CASE("after kill -9 mid-run, the next start records the run as interrupted") {
    TempTree state;
    const std::vector<std::string> args = {"--state-dir", state.root()};
    std::string id;
    {
        Daemon first(args);
        auto accepted = first.client().Post(
            "/v1/runs",
            R"({"probe": "cipher", "params": {"ciphers": ["chacha20"], "block_sizes": [1024],
                "seconds": 60, "threads": 1}})",
            "application/json");
        REQUIRE(accepted);
        id = json::parse(accepted->body)["id"];
        auto client = first.client();
        REQUIRE(eventually([&] { return run_state(client, id) == "running"; }));
        // The runner shows a run running a moment before its start is in the journal; the kill
        // must come after it is (this failed under TSan's slowness).
        REQUIRE(eventually([&] {
            std::ifstream journal(state.root() + "/runs.jsonl");
            const std::string text((std::istreambuf_iterator<char>(journal)),
                                   std::istreambuf_iterator<char>());
            return text.find("\"started\"") != std::string::npos &&
                   text.find(id) != std::string::npos;
        }));
        first.process.signal(SIGKILL);
        first.process.wait(5s);
    }
    Daemon second(args);
    const json run = json::parse(second.client().Get("/v1/runs/" + id)->body);
    CHECK(run["state"] == "failed");
    CHECK(run["error"].get<std::string>().find("interrupted") != std::string::npos);
}

TEST_CASE("a torn journal line is skipped with a warning, and the agent starts") {
    TempTree state;
    state.write("runs.jsonl", "{\"event\": \"finished\", \"run\": {\"id\": \"x\"");
    Daemon daemon({"--state-dir", state.root()});
    CHECK(runs_of(daemon).empty());
    CHECK(daemon.process.errors().find("torn or malformed") != std::string::npos);
    CHECK(run_to_end(binary(), {"serve", "--state-dir", state.root() + "/runs.jsonl/x"})
              .status.code == 1);
}
