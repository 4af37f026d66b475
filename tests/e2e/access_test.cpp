// Who may do what, against the real daemon: tokens, trusted peers and --auth-reads.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

const std::string kRunBody = R"({"probe": "cpu"})";

// One request from a chosen source address (httplib cannot bind a client to one); returns the
// status line and headers and body as the server sent them.
std::string request_from(const std::string& source, int port, const std::string& request) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, source.c_str(), &local.sin_addr);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) == 0);
    REQUIRE(write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
    std::string answer;
    char buffer[4096];
    for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) > 0;)
        answer.append(buffer, got);
    close(fd);
    return answer;
}

std::string post_run(const std::string& authorization = "") {
    return "POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
           "Content-Type: application/json\r\n" +
           (authorization.empty() ? "" : "Authorization: " + authorization + "\r\n") +
           "Content-Length: " + std::to_string(kRunBody.size()) + "\r\n\r\n" + kRunBody;
}

}  // namespace

TEST_CASE("with --token-file, POST needs the bearer token; reads stay open") {
    TempTree files;
    files.write("token", "  correct-horse-battery\n");
    Daemon daemon({"--token-file", files.root() + "/token"});
    auto client = daemon.client();
    auto missing = client.Post("/v1/runs", kRunBody, "application/json");
    REQUIRE(missing);
    CHECK(missing->status == 401);
    CHECK(missing->get_header_value("WWW-Authenticate") == "Bearer realm=\"hostprobe\"");
    auto wrong = client.Post("/v1/runs", {{"Authorization", "Bearer correct-horse"}}, kRunBody,
                             "application/json");
    REQUIRE(wrong);
    CHECK(wrong->status == 401);
    auto right = client.Post("/v1/runs", {{"Authorization", "Bearer correct-horse-battery"}},
                             kRunBody, "application/json");
    REQUIRE(right);
    CHECK(right->status == 202);
    CHECK(client.Get("/metrics")->status == 200);

    // With a token, the peer's address no longer matters.
    CHECK(request_from("127.0.0.2", daemon.port, post_run("Bearer correct-horse-battery"))
              .rfind("HTTP/1.1 202", 0) == 0);
}

TEST_CASE("HOSTPROBE_TOKEN_FILE works like --token-file, and DELETE needs the token too") {
    TempTree files;
    files.write("token", "delete-me-token\n");
    Daemon daemon({}, {{"HOSTPROBE_TOKEN_FILE", files.root() + "/token"}});
    auto client = daemon.client();
    const httplib::Headers bearer{{"Authorization", "Bearer delete-me-token"}};
    const std::string long_run =
        R"({"probe": "cipher", "params": {"ciphers": ["aes-128-gcm"], "seconds": 30}})";
    CHECK(client.Post("/v1/runs", long_run, "application/json")->status == 401);
    auto started = client.Post("/v1/runs", bearer, long_run, "application/json");
    REQUIRE(started);
    REQUIRE(started->status == 202);
    const std::string path =
        "/v1/runs/" + nlohmann::json::parse(started->body)["id"].get<std::string>();
    auto refused = client.Delete(path);
    REQUIRE(refused);
    CHECK(refused->status == 401);
    CHECK(nlohmann::json::parse(client.Get(path)->body)["state"] != "cancelled");
    auto cancelled = client.Delete(path, bearer);
    REQUIRE(cancelled);
    CHECK((cancelled->status == 200 || cancelled->status == 202));
    CHECK(eventually(
        [&] { return nlohmann::json::parse(client.Get(path)->body)["state"] == "cancelled"; }));
}

TEST_CASE("without a token, only trusted peers may POST") {
    Daemon daemon({"--trusted-peers", "127.0.0.1/32"});
    const std::string refused = request_from("127.0.0.2", daemon.port, post_run());
    CHECK(refused.rfind("HTTP/1.1 403", 0) == 0);
    CHECK(refused.find("--trusted-peers 127.0.0.1/32") != std::string::npos);
    CHECK(request_from("127.0.0.1", daemon.port, post_run()).rfind("HTTP/1.1 202", 0) == 0);
    // Reads are not protected without --auth-reads.
    CHECK(request_from("127.0.0.2", daemon.port,
                       "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("HOSTPROBE_TRUSTED_PEERS= (empty) trusts no peer: without a token nobody may POST") {
    Daemon daemon({}, {{"HOSTPROBE_TRUSTED_PEERS", ""}});
    const std::string refused = request_from("127.0.0.1", daemon.port, post_run());
    CHECK(refused.rfind("HTTP/1.1 403", 0) == 0);
    CHECK(request_from("127.0.0.1", daemon.port,
                       "GET /v1/host HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("--auth-reads protects GETs and /metrics, never /healthz") {
    Daemon daemon({"--auth-reads"}, {{"HOSTPROBE_TOKEN", "reader-token"}});
    auto client = daemon.client();
    CHECK(client.Get("/metrics")->status == 401);
    CHECK(client.Get("/v1/host")->status == 401);
    CHECK(client.Get("/metrics", {{"Authorization", "Bearer reader-token"}})->status == 200);
    CHECK(client.Get("/healthz")->status == 200);
}

TEST_CASE("bad access settings are usage errors") {
    TempTree files;
    files.write("empty", "\n");
    CHECK(run_to_end(binary(), {"serve", "--token-file", files.root() + "/empty"}).status.code ==
          2);
    CHECK(run_to_end(binary(), {"serve", "--token-file", files.root() + "/absent"}).status.code ==
          2);
    const auto on_command_line = run_to_end(binary(), {"serve", "--token", "visible-in-ps"});
    CHECK(on_command_line.status.code == 2);
    CHECK(on_command_line.errors.find("HOSTPROBE_TOKEN") != std::string::npos);
    CHECK(run_to_end(binary(), {"serve", "--trusted-peers", "10.0.0.0/40"}).status.code == 2);
}
