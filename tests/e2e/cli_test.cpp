// End to end: the command line's exit statuses and outputs.
#include <doctest/doctest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

TEST_CASE("--help and --version exit 0; bad flags print usage and exit 2") {
    const auto help = run_to_end(binary(), {"--help"});
    CHECK(help.status.code == 0);
    CHECK(help.output.find("Usage: hostprobe <command>") != std::string::npos);
    const auto version = run_to_end(binary(), {"--version"});
    CHECK(version.status.code == 0);
    CHECK(version.output.rfind("hostprobe 0.", 0) == 0);
    CHECK(version.output.find("OpenSSL 3") != std::string::npos);
    const auto serve_help = run_to_end(binary(), {"serve", "--help"});
    CHECK(serve_help.status.code == 0);
    CHECK(serve_help.output.find("HOSTPROBE_LISTEN") != std::string::npos);

    for (const std::vector<std::string>& args : {std::vector<std::string>{"serve", "--bogus"},
                                                 {"serve", "--listen", "nowhere"},
                                                 {"serve", "--listen"},
                                                 {"serve", "--http-threads", "0"},
                                                 {"frobnicate"},
                                                 {},
                                                 {"cpu", "--sysroot", "/does/not/exist"},
                                                 {"cpu", "extra"},
                                                 {"healthcheck", "--url", "x"}}) {
        const auto bad = run_to_end(binary(), args);
        INFO(bad.errors);
        CHECK(bad.status.code == 2);
        CHECK(bad.errors.find("hostprobe") != std::string::npos);
        CHECK(bad.errors.find("Usage") != std::string::npos);
    }
}

TEST_CASE("hostprobe cpu prints lscpu-style text or the /v1/host JSON") {
    const auto text = run_to_end(binary(), {"cpu", "--sysroot", sysroot("fargate-e5-2676v3")});
    CHECK(text.status.code == 0);
    CHECK(text.output.find("Model name:          Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz") !=
          std::string::npos);
    CHECK(text.output.find("Hypervisor vendor:   Xen") != std::string::npos);
    const auto json_output =
        run_to_end(binary(), {"cpu", "--json", "--sysroot", sysroot("fargate-e5-2676v3")});
    CHECK(json_output.status.code == 0);
    const auto document = nlohmann::json::parse(json_output.output);
    CHECK(document["guess"]["microarchitecture"] == "Haswell");
    CHECK(document["schema_version"] == 1);
    const auto live = run_to_end(binary(), {"cpu", "--json"});
    CHECK(live.status.code == 0);
    CHECK(nlohmann::json::parse(live.output)["sysroot"] == "/");
}

TEST_CASE("healthcheck: 0 when the daemon answers, 1 when nothing listens") {
    Process daemon(binary(),
                   {"serve", "--listen", "127.0.0.1:0", "--sysroot", sysroot("graviton2-8cpu")});
    const auto port = daemon.wait_for_port(10s);
    REQUIRE(port.has_value());
    const std::string listen = "127.0.0.1:" + std::to_string(*port);
    CHECK(run_to_end(binary(), {"healthcheck", "--url", "http://" + listen + "/healthz"})
              .status.code == 0);
    // The default URL follows HOSTPROBE_LISTEN, as in a task definition.
    CHECK(run_to_end(binary(), {"healthcheck"},
                     {{"HOSTPROBE_LISTEN", "0.0.0.0:" + std::to_string(*port)}})
              .status.code == 0);
    daemon.signal(SIGTERM);
    CHECK(daemon.wait(5s).code == 0);
    const auto down = run_to_end(
        binary(), {"healthcheck", "--url", "http://" + listen + "/healthz", "--timeout", "1"});
    CHECK(down.status.code == 1);
    CHECK(down.errors.find("unhealthy") != std::string::npos);
    CHECK(down.errors.find("cannot connect: no agent is listening there") != std::string::npos);
}
