// End to end: the system probe through the daemon (its execl, spawn and shell tests run in the
// hostprobe-process-loops built beside the real binary), and SIGTERM mid-test leaving no child
// process and no file.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/process_tree.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// SIGTERM to the agent: exit 0 within 2 s, and every process in `started` gone with it.
void check_sigterm_ends_cleanly(Daemon& daemon, const std::vector<pid_t>& started) {
    daemon.process.signal(SIGTERM);
    const ExitStatus status = daemon.process.wait(5s);
    CHECK(status.code == 0);
    CHECK(status.waited < 2s);
    for (pid_t process : started)
        CHECK(eventually([&] { return process_gone(process); }));
}

}  // namespace

TEST_CASE("a system run over HTTP: results, the UnixBench-style report, metrics") {
    Daemon daemon;
    auto client = daemon.client();
    auto created = client.Post(
        "/v1/runs?wait=60",
        R"({"probe": "system", "params": {"tests": ["execl", "spawn", "syscall"], "copies": [1], "seconds": 1}})",
        "application/json");
    REQUIRE(created);
    const json run = json::parse(created->body);
    REQUIRE(run["state"] == "succeeded");
    const json& tests = run["result"]["tests"];
    REQUIRE(tests.size() == 3);
    CHECK(tests[0]["name"] == "execl");
    for (const auto& test : tests) {
        INFO(test.dump());
        CHECK(test["value"].get<double>() > 0);
    }
    CHECK(run["result"]["index"]["1"].get<double>() > 0);
    CHECK(run["result"]["skipped"].empty());  // the helper was found beside the binary
    CHECK(run["result"]["unixbench_version"] == "6.0.0");
    CHECK(run["result"]["cpu_mitigations_costing_syscalls"].is_array());
    CHECK(children_of(daemon.process.pid()).empty());

    auto text = client.Get("/v1/runs/" + run["id"].get<std::string>() + "?format=text");
    REQUIRE(text);
    CHECK(text->body.find("Execl Throughput") != std::string::npos);
    CHECK(text->body.find("Index baselines: UnixBench 6.0.0") != std::string::npos);
    CHECK(text->body.find("Kernel mitigations paid on every system call: ") != std::string::npos);
    CHECK(text->body.find("System Benchmarks Index Score (Partial Only)") != std::string::npos);

    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->body.find("hostprobe_system_index_score{copies=\"1\"}") != std::string::npos);
    CHECK(metrics->body.find("hostprobe_system_result{test=\"execl\",copies=\"1\",unit=\"lps\"}") !=
          std::string::npos);
    CHECK(promtool_accepts(metrics->body));
}

TEST_CASE("HOSTPROBE_SYSTEM_SHELL= (empty) turns the shell tests off, as --system-shell '' does") {
    for (const auto& [args, env] :
         {std::pair<std::vector<std::string>, std::map<std::string, std::string>>{
              {}, {{"HOSTPROBE_SYSTEM_SHELL", ""}}},
          {{"--system-shell", ""}, {}}}) {
        Daemon daemon(args, env);
        auto answer = daemon.client().Post(
            "/v1/runs?wait=60",
            R"({"probe": "system", "params": {"tests": ["shell"], "copies": [1], "seconds": 1}})",
            "application/json");
        REQUIRE(answer);
        REQUIRE(answer->status == 200);
        const json run = json::parse(answer->body);
        CHECK(run["state"] == "succeeded");
        CHECK(run["result"]["tests"].empty());
        REQUIRE(run["result"]["skipped"].size() == 2);
        CHECK(run["result"]["skipped"][0]["reason"].get<std::string>().find("shell") !=
              std::string::npos);
    }
}

// Serial: the 2 s deadline covers killing and reaping a shell's whole process tree, which a busy
// neighbour under a sanitizer can slow past it (2.3 s seen under ASan on a loaded machine).
TEST_CASE("SIGTERM mid system test: exit 0 within 2 s, no child process, no file" *
          doctest::test_suite("serial")) {
    TempTree allowed;
    Daemon daemon({"--disk-dir", allowed.root()});
    auto client = daemon.client();
    SUBCASE("forked children") {
        REQUIRE(client.Post(
            "/v1/runs",
            R"({"probe": "system", "params": {"tests": ["context_switch"], "copies": [2], "seconds": 60}})",
            "application/json"));
        // Two copies: two helpers, each with its ping-pong partner.
        std::vector<pid_t> children;
        REQUIRE(eventually([&] {
            children = children_of(daemon.process.pid(), true);
            return children.size() == 4;
        }));
        check_sigterm_ends_cleanly(daemon, children);
    }
    SUBCASE("every test that forks or execs: helpers that exec, fork or run a shell") {
        const bool shell = ::access("/bin/sh", X_OK) == 0;
        for (const std::string test : {"execl", "spawn", "pipe", "shell"}) {
            if (test == "shell" && !shell) continue;
            CAPTURE(test);
            Daemon each({"--disk-dir", allowed.root()});
            auto client_of_each = each.client();
            auto posted = client_of_each.Post("/v1/runs",
                                              R"({"probe": "system", "params": {"tests": [")" +
                                                  test + R"("], "copies": [2], "seconds": 60}})",
                                              "application/json");
            REQUIRE(posted);
            const std::string id = json::parse(posted->body)["id"];
            // Into the timed loop, past the set-up: progress moves only once the helpers are
            // up and timing.
            REQUIRE(eventually([&] {
                auto run = client_of_each.Get("/v1/runs/" + id);
                return run && json::parse(run->body)["progress"].get<double>() > 0;
            }));
            std::vector<pid_t> children;
            REQUIRE(eventually([&] {
                children = children_of(each.process.pid(), true);
                return children.size() >= 2;
            }));
            check_sigterm_ends_cleanly(each, children);
        }
    }
    SUBCASE("files in the allowed directory") {
        REQUIRE(client.Post(
            "/v1/runs",
            R"({"probe": "system", "params": {"tests": ["file_copy"], "copies": [2], "seconds": 60, "directory": ")" +
                allowed.root() + R"("}})",
            "application/json"));
        REQUIRE(eventually([&] { return has_test_files(allowed.root()); }));
        check_sigterm_ends_cleanly(daemon, {});
        CHECK_FALSE(has_test_files(allowed.root()));
    }
}

TEST_CASE("kill -9 mid system run: the next start removes its work directory") {
    TempTree allowed;
    const bool shell = ::access("/bin/sh", X_OK) == 0;
    const std::string nested_test = shell ? "shell" : "file_copy";
    const int nested_depth = shell ? 2 : 1;
    {
        Daemon daemon({"--disk-dir", allowed.root()});
        REQUIRE(daemon.client().Post("/v1/runs",
                                     R"({"probe": "system", "params": {"tests": [")" + nested_test +
                                         R"("], "copies": [1], "seconds": 60, "directory": ")" +
                                         allowed.root() + R"("}})",
                                     "application/json"));
        // The shell scripts' files in their own subdirectory (2 deep), or without a shell the
        // copy test's files (1 deep).
        REQUIRE(eventually([&] {
            std::error_code error;  // the tree changes while it is walked
            for (auto it = std::filesystem::recursive_directory_iterator(allowed.root(), error);
                 it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
                if (error) return false;
                if (it.depth() >= nested_depth) return true;
            }
            return false;
        }));
        const std::vector<pid_t> helpers = children_of(daemon.process.pid(), true);
        CHECK_FALSE(helpers.empty());
        daemon.process.signal(SIGKILL);
        daemon.process.wait(5s);
        for (pid_t helper : helpers)  // they die with the agent instead of going on alone
            CHECK(eventually([&] { return process_gone(helper); }));
    }
    CHECK(has_test_files(allowed.root()));
    Daemon restarted({"--disk-dir", allowed.root()});
    CHECK_FALSE(has_test_files(allowed.root()));
}

TEST_CASE("kill -9 mid run in the private directory: the next start removes it, not a live one") {
    TempTree temporary;
    const std::map<std::string, std::string> env{{"TMPDIR", temporary.root()}};
    const std::string body =
        R"({"probe": "system", "params": {"tests": ["file_copy"], "copies": [1], "seconds": 60}})";
    {
        Daemon daemon({}, env);
        auto client = daemon.client();
        auto posted = client.Post("/v1/runs", body, "application/json");
        REQUIRE(posted);
        const std::string id = json::parse(posted->body)["id"];
        REQUIRE(eventually([&] { return has_test_files(temporary.root()); }));
        // A second agent sharing $TMPDIR starts while the run goes on: the directory is locked,
        // so its start-up cleanup must leave it.
        Daemon neighbour({}, env);
        CHECK(has_test_files(temporary.root()));
        CHECK(json::parse(client.Get("/v1/runs/" + id)->body)["state"] == "running");
        CHECK(neighbour.process.errors().find("stale work directory") == std::string::npos);
        daemon.process.signal(SIGKILL);
        daemon.process.wait(5s);
    }
    CHECK(has_test_files(temporary.root()));
    Daemon restarted({}, env);
    CHECK_FALSE(has_test_files(temporary.root()));
    CHECK(restarted.process.errors().find("removed a stale work directory") != std::string::npos);
}
