// --tls-cert/--tls-key: the same API over HTTPS, and the healthcheck command following it.
#include <doctest/doctest.h>
#include <httplib.h>

#include <cstdlib>
#include <string>

#include "support/daemon.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;

namespace {

// A throw-away self-signed certificate made with the openssl command.
bool make_certificate(const TempTree& files) {
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "
        "/CN=localhost -keyout " +
        files.root() + "/key.pem -out " + files.root() + "/cert.pem >/dev/null 2>&1";
    return std::system(command.c_str()) == 0;
}

}  // namespace

TEST_CASE("with a certificate and key the agent serves HTTPS only") {
    TempTree files;
    REQUIRE_MESSAGE(make_certificate(files), "the openssl command is needed");
    const std::string cert = files.root() + "/cert.pem";
    const std::string key = files.root() + "/key.pem";
    Daemon daemon({"--tls-cert", cert, "--tls-key", key});
    CHECK(daemon.process.errors().find("tls=on") != std::string::npos);

    httplib::SSLClient secure("127.0.0.1", daemon.port);
    secure.enable_server_certificate_verification(false);
    auto health = secure.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    CHECK(secure.Get("/metrics")->body.find("hostprobe_cpu_info") != std::string::npos);

    httplib::Client plain("127.0.0.1", daemon.port);
    plain.set_read_timeout(2, 0);
    auto refused = plain.Get("/healthz");
    CHECK_FALSE((refused && refused->status == 200));

    const auto check = run_to_end(binary(), {"healthcheck"},
                                  {{"HOSTPROBE_LISTEN", "127.0.0.1:" + std::to_string(daemon.port)},
                                   {"HOSTPROBE_TLS_CERT", cert}});
    CHECK_MESSAGE(check.status.code == 0, check.errors);
}

TEST_CASE("TLS settings that cannot work stop the daemon with a clear message") {
    TempTree files;
    files.write("not-a-cert.pem", "hello\n");
    const std::string junk = files.root() + "/not-a-cert.pem";
    const auto bad = run_to_end(
        binary(), {"serve", "--listen", "127.0.0.1:0", "--tls-cert", junk, "--tls-key", junk});
    CHECK(bad.status.code == 1);
    CHECK(bad.errors.find("cannot serve TLS") != std::string::npos);
    CHECK(run_to_end(binary(), {"serve", "--tls-cert", junk}).status.code == 2);
    CHECK(run_to_end(binary(), {"serve", "--tls-cert", junk, "--tls-key", files.root() + "/none"})
              .status.code == 2);
}
