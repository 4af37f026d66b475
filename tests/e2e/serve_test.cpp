// End to end: the real binary, an ephemeral port, real HTTP, real signals, and promtool.
#include <doctest/doctest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/loopback.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {}  // namespace

TEST_CASE("the daemon serves /healthz, /v1/host, /metrics and its index") {
    Daemon daemon({"--sysroot", sysroot("fargate-e5-2686v4")});
    auto client = daemon.client();

    auto health = client.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    CHECK(json::parse(health->body)["status"] == "ok");

    auto host = client.Get("/v1/host");
    REQUIRE(host);
    CHECK(host->status == 200);
    CHECK(host->get_header_value("Content-Type") == "application/json");
    const json facts = json::parse(host->body);
    CHECK(facts["cpu"]["model_name"] == "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz");
    CHECK(facts["cgroup"]["cpu_quota_cores"] == 0.25);
    CHECK(facts["cpu_budget"]["workers"] == 1);
    CHECK(facts["guess"]["microarchitecture"] == "Broadwell");
    // The same identity in the log, for fleets that count models from their logs.
    CHECK(daemon.process.errors().find(
              "msg=host model_name=\"Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz\" "
              "microarchitecture=Broadwell hypervisor=Xen") != std::string::npos);

    auto text = client.Get("/v1/host?format=text");
    REQUIRE(text);
    CHECK(text->body.find("Model name:") != std::string::npos);
    auto bad_format = client.Get("/v1/host?format=xml");
    REQUIRE(bad_format);
    CHECK(bad_format->status == 400);

    auto index = client.Get("/");
    REQUIRE(index);
    const json endpoints = json::parse(index->body)["endpoints"];
    std::vector<std::string> paths;
    for (const auto& endpoint : endpoints)
        paths.push_back(endpoint["path"]);
    CHECK(paths == std::vector<std::string>{"/", "/healthz", "/v1/host", "/metrics", "/v1/task",
                                            "/v1/runs", "/v1/runs", "/v1/runs/{id}",
                                            "/v1/runs/{id}", "/v1/probes", "/ui/{asset...}",
                                            "/openapi.json"});

    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->status == 200);
    CHECK(metrics->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0) == 0);
    CHECK(metrics->body.find("model_name=\"Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz\"") !=
          std::string::npos);
    CHECK(metrics->body.find("hostprobe_cgroup_cpu_quota_cores 0.25") != std::string::npos);

    CHECK_MESSAGE(promtool_accepts(metrics->body),
                  "promtool check metrics failed (is Debian's prometheus package installed?)");
}

TEST_CASE("wrong paths and methods get JSON errors") {
    Daemon daemon({"--sysroot", sysroot("graviton2-8cpu")});
    auto client = daemon.client();
    auto missing = client.Get("/v2/nothing");
    REQUIRE(missing);
    CHECK(missing->status == 404);
    CHECK(json::parse(missing->body)["status"] == 404);
    auto wrong = client.Post("/v1/host", "{}", "application/json");
    REQUIRE(wrong);
    CHECK(wrong->status == 405);
    CHECK(wrong->get_header_value("Allow") == "GET, HEAD");
    auto bodiless = client.Delete("/healthz");
    REQUIRE(bodiless);
    CHECK(bodiless->status == 405);
    auto head = client.Head("/healthz");
    REQUIRE(head);
    CHECK(head->status == 200);
}

TEST_CASE(
    "SIGTERM and SIGINT stop the daemon with status 0 within 2 s, even with a client connected") {
    for (int signal_number : {SIGTERM, SIGINT}) {
        Daemon daemon({"--sysroot", sysroot("graviton2-8cpu")});
        auto client = daemon.client();
        client.set_keep_alive(true);
        REQUIRE(client.Get("/healthz"));  // leaves an idle keep-alive connection open
        daemon.process.signal(signal_number);
        const ExitStatus status = daemon.process.wait(5s);
        CHECK(status.exited);
        CHECK(status.code == 0);
        CHECK(status.waited < 2s);
        CHECK(daemon.process.errors().find("msg=stopped") != std::string::npos);
    }
}

TEST_CASE("SIGTERM ends within 2 s even while clients are mid-request or trickle bytes") {
    Daemon daemon({"--sysroot", sysroot("graviton2-8cpu"), "--request-timeout", "30"});
    const size_t listening = open_sockets(daemon.process.pid());
    // A request line and one header, never the blank line: a read waits for up to 30 s.
    const int half_sent = connect_to_loopback(daemon.port);
    send_all(half_sent, "GET /v1/host HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    // One byte at a time, each well within the read timeout: without end.
    const int trickling = connect_to_loopback(daemon.port);
    send_all(trickling, "GET /v1/host HTTP/1.1\r\n");
    // Both connections accepted by the daemon and what was sent read by its threads (a
    // connection accepted but not yet taken by a thread would simply be closed at the stop),
    // then one more byte of the trickle: the signal finds two requests being read.
    REQUIRE(eventually([&] {
        const auto server_side = server_side_connections(daemon.port);
        return open_sockets(daemon.process.pid()) == listening + 2 &&
               server_side.established == 2 && server_side.unread == 0;
    }));
    send_all(trickling, "X");
    daemon.process.signal(SIGTERM);
    const ExitStatus status = daemon.process.wait(40s);
    close(half_sent);
    close(trickling);
    CHECK(status.exited);
    CHECK(status.code == 0);
    CHECK(status.waited < 2s);
    const std::string log = daemon.process.errors();
    CHECK(log.find("ended open connections") != std::string::npos);
    CHECK(log.find("count=2") != std::string::npos);
    CHECK(log.find("msg=stopped") != std::string::npos);
}

TEST_CASE("a port in use is a clear error and exit status 1") {
    Daemon first({"--sysroot", sysroot("graviton2-8cpu")});
    const auto second =
        run_to_end(binary(), {"serve", "--listen", "127.0.0.1:" + std::to_string(first.port),
                              "--sysroot", sysroot("graviton2-8cpu")});
    CHECK(second.status.exited);
    CHECK(second.status.code == 1);
    CHECK(second.errors.find("Address already in use") != std::string::npos);
}

TEST_CASE("the live machine") {
    Daemon daemon;
    auto host = daemon.client().Get("/v1/host");
    REQUIRE(host);
    const json facts = json::parse(host->body);
    CHECK(facts["sysroot"] == "/");
    CHECK(facts["cpu_budget"]["workers"].get<int>() >= 1);
}

TEST_CASE("configuration comes from HOSTPROBE_ environment variables too") {
    Daemon daemon({}, {{"HOSTPROBE_SYSROOT", sysroot("fargate-e5-2670v2")}});
    auto host = daemon.client().Get("/v1/host");
    REQUIRE(host);
    CHECK(json::parse(host->body)["cpu"]["model"] == 62);
}
