// End to end: the disk and files probes through the daemon and the command line, with the
// allowlist, and nothing left behind after SIGTERM or kill -9.
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>
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

std::string body(const std::string& directory, const std::string& extra = "") {
    return R"({"probe": "disk", "params": {"directory": ")" + directory +
           R"(", "size": "1m", "bs": "4k", "time_based": false, "direct": false)" + extra + "}}";
}

// Waits until the run measures (layout done: progress past 10%).
void wait_until_measuring(httplib::Client& client, const std::string& id) {
    REQUIRE_MESSAGE(eventually([&] {
                        const json run = json::parse(client.Get("/v1/runs/" + id)->body);
                        return run["state"] == "running" && run["progress"].get<double>() > 0.1;
                    }),
                    "the run never started measuring");
}

}  // namespace

TEST_CASE("GET /v1/probes offers the allowed directories to the storage probes' forms") {
    TempTree first, second;
    Daemon daemon({"--disk-dir", first.root() + "," + second.root()});
    auto probes = daemon.client().Get("/v1/probes");
    REQUIRE(probes);
    const json allowed = json::array({std::filesystem::canonical(first.root()).string(),
                                      std::filesystem::canonical(second.root()).string()});
    const json listed = json::parse(probes->body);
    size_t offered = 0;
    for (const json& probe : listed["probes"]) {
        for (const json& param : probe["params"]) {
            if (param["name"] != "directory") continue;
            CHECK_MESSAGE(param["examples"] == allowed, probe["name"]);
            ++offered;
        }
    }
    CHECK(offered == 3);  // disk, files, system
}

TEST_CASE("a disk run in an allowed directory, its metrics, and what is refused") {
    TempTree allowed, elsewhere;
    std::filesystem::create_directory_symlink(elsewhere.root(), allowed.root() + "/escape");
    Daemon daemon({"--disk-dir", allowed.root()});
    auto client = daemon.client();

    auto created = client.Post("/v1/runs?wait=60", body(allowed.root()), "application/json");
    REQUIRE(created);
    CHECK(created->status == 200);
    const json run = json::parse(created->body);
    CHECK(run["state"] == "succeeded");
    CHECK(run["result"]["read"]["total_ios"] == 256);
    CHECK_FALSE(has_test_files(allowed.root()));

    auto files = client.Post(
        "/v1/runs?wait=60",
        R"({"probe": "files", "params": {"directory": ")" + allowed.root() + R"(", "files": 20}})",
        "application/json");
    REQUIRE(files);
    CHECK(json::parse(files->body)["state"] == "succeeded");

    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->body.find("hostprobe_disk_iops{directory=\"") != std::string::npos);
    CHECK(metrics->body.find("hostprobe_disk_latency_seconds{") != std::string::npos);
    CHECK(metrics->body.find("hostprobe_files_ops_per_second{") != std::string::npos);
    CHECK(promtool_accepts(metrics->body));

    auto outside = client.Post("/v1/runs", body(elsewhere.root()), "application/json");
    REQUIRE(outside);
    CHECK(outside->status == 403);
    auto escape = client.Post("/v1/runs", body(allowed.root() + "/escape"), "application/json");
    REQUIRE(escape);
    CHECK(escape->status == 403);
    auto relative = client.Post("/v1/runs", body("tmp"), "application/json");
    REQUIRE(relative);
    CHECK(relative->status == 403);
    auto traversal = client.Post("/v1/runs", body(allowed.root() + "/../x"), "application/json");
    REQUIRE(traversal);
    CHECK(traversal->status == 403);
    auto too_big = client.Post("/v1/runs", body(allowed.root(), R"(, "size": "1g", "numjobs": 64)"),
                               "application/json");
    REQUIRE(too_big);
    CHECK(too_big->status == 400);
    CHECK(json::parse(too_big->body)["error"].get<std::string>().find("--disk-max-bytes") !=
          std::string::npos);
}

TEST_CASE("without --disk-dir the daemon refuses storage probes") {
    TempTree somewhere;
    Daemon daemon;
    auto refused = daemon.client().Post("/v1/runs", body(somewhere.root()), "application/json");
    REQUIRE(refused);
    CHECK(refused->status == 403);
    CHECK(json::parse(refused->body)["error"].get<std::string>().find("--disk-dir") !=
          std::string::npos);
    CHECK(run_to_end(binary(), {"serve", "--disk-dir", "relative/dir"}).status.code == 2);
}

TEST_CASE("SIGTERM mid disk run: exit 0 within 2 s, no test file left, the run recorded") {
    TempTree allowed;
    TempTree state;
    const std::vector<std::string> args = {"--disk-dir", allowed.root(), "--state-dir",
                                           state.root()};
    std::string id;
    {
        Daemon daemon(args);
        auto client = daemon.client();
        auto created =
            client.Post("/v1/runs", body(allowed.root(), R"(, "time_based": true, "runtime": 60)"),
                        "application/json");
        REQUIRE(created);
        id = json::parse(created->body)["id"];
        wait_until_measuring(client, id);
        CHECK(has_test_files(allowed.root()));
        daemon.process.signal(SIGTERM);
        const ExitStatus status = daemon.process.wait(5s);
        CHECK(status.code == 0);
        CHECK(status.waited < 2s);
        CHECK_FALSE(has_test_files(allowed.root()));
    }
    Daemon restarted(args);
    const json run = json::parse(restarted.client().Get("/v1/runs/" + id)->body);
    CHECK(run["state"] == "cancelled");
    CHECK(run["result"]["partial"] == true);
}

TEST_CASE("kill -9 mid run: the next start removes the leftovers and marks the run failed") {
    TempTree allowed;
    TempTree state;
    const std::vector<std::string> args = {"--disk-dir", allowed.root(), "--state-dir",
                                           state.root()};
    std::string id;
    {
        Daemon daemon(args);
        auto client = daemon.client();
        auto created =
            client.Post("/v1/runs", body(allowed.root(), R"(, "time_based": true, "runtime": 60)"),
                        "application/json");
        REQUIRE(created);
        id = json::parse(created->body)["id"];
        wait_until_measuring(client, id);
        daemon.process.signal(SIGKILL);
        daemon.process.wait(5s);
    }
    CHECK(has_test_files(allowed.root()));
    Daemon restarted(args);
    CHECK_FALSE(has_test_files(allowed.root()));
    CHECK(restarted.process.errors().find("removed a stale test file") != std::string::npos);
    const json run = json::parse(restarted.client().Get("/v1/runs/" + id)->body);
    CHECK(run["state"] == "failed");
    CHECK(run["error"].get<std::string>().find("interrupted") != std::string::npos);
}

TEST_CASE("hostprobe run disk and files trust the directory they are given") {
    TempTree any;
    const auto disk = run_to_end(
        binary(), {"run", "disk", "--directory", any.root(), "--size", "512k", "--bs", "4k",
                   "--time_based", "false", "--direct", "false", "--rw", "randwrite"});
    CHECK(disk.status.code == 0);
    CHECK(disk.output.find("write: IOPS=") != std::string::npos);
    CHECK(disk.output.find("clat percentiles (usec):") != std::string::npos);
    const auto files = run_to_end(
        binary(), {"run", "files", "--directory", any.root(), "--files", "10", "--json"});
    CHECK(files.status.code == 0);
    CHECK(json::parse(files.output)["result"]["ops"]["stat"]["ops"] == 10);
    CHECK_FALSE(has_test_files(any.root()));
    CHECK(run_to_end(binary(), {"run", "disk", "--directory", "relative"}).status.code == 2);
}
