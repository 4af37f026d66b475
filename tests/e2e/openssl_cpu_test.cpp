// End to end: OpenSSL's CPU settings on the live machine, with AES-NI masked by
// OPENSSL_ia32cap and without, in a cipher run, GET /v1/host and /metrics.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/daemon.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

// AES-NI is CPUID.1:ECX bit 25, OpenSSL's bit 57; no ':' part, so the second word is zeroed too.
const std::map<std::string, std::string> kAesNiMasked = {{"OPENSSL_ia32cap", "~0x200000000000000"}};

// The masked runs mean something only on an x86 CPU that has AES-NI.
bool live_cpu_has_aes_ni() {
#if defined(__x86_64__)
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) != 0) continue;
        std::istringstream words(line);
        std::string word;
        while (words >> word) {
            if (word == "aes") return true;
        }
        return false;
    }
#endif
    return false;
}

json openssl_cipher_run(const std::map<std::string, std::string>& environment) {
    const auto run = run_to_end(binary(),
                                {"run", "cipher", "--ciphers", "aes-128-gcm", "--block-sizes",
                                 "16384", "--threads", "1", "--seconds", "0.2", "--json"},
                                environment, std::chrono::seconds(60));
    INFO(run.errors);
    REQUIRE(run.status.code == 0);
    return json::parse(run.output)["result"];
}

bool metrics_has_line(const std::string& text, const std::string& wanted) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line == wanted) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("cipher run: AES-NI used, and masked by OPENSSL_ia32cap with the sentence saying so") {
    if (!live_cpu_has_aes_ni()) SKIP_TEST("not an x86 CPU with AES-NI");
    const json plain = openssl_cipher_run({});
    INFO(plain.dump());
    REQUIRE(plain.contains("openssl_cpu"));
    CHECK(plain["openssl_cpu"]["aes"] == true);
    CHECK(plain["openssl_cpu"]["aes_hardware"] == "used");
    CHECK(plain["openssl_cpu"]["environment"].is_null());
    CHECK(plain["openssl_cpu"]["settings"].get<std::string>().rfind("OPENSSL_ia32cap=0x", 0) == 0);
    CHECK(plain["explanation"].get<std::string>().find("AES ran without") == std::string::npos);

    const json masked = openssl_cipher_run(kAesNiMasked);
    INFO(masked.dump());
    REQUIRE(masked.contains("openssl_cpu"));
    CHECK(masked["openssl_cpu"]["aes"] == false);
    CHECK(masked["openssl_cpu"]["aes_hardware"] == "masked");
    CHECK(masked["openssl_cpu"]["environment"] == "~0x200000000000000");
    const std::string explanation = masked["explanation"].get<std::string>();
    CHECK(explanation.find("AES ran without AES-NI: OPENSSL_ia32cap=~0x200000000000000 in the "
                           "environment masks it, although the CPU has it") != std::string::npos);
    CHECK(explanation.find("a common cause of slow TLS") != std::string::npos);
}

TEST_CASE("GET /v1/host and /metrics show OpenSSL's CPU settings of the live daemon") {
    if (!live_cpu_has_aes_ni()) SKIP_TEST("not an x86 CPU with AES-NI");
    Daemon daemon({}, kAesNiMasked);
    auto client = daemon.client();
    const auto host = client.Get("/v1/host");
    REQUIRE(host);
    const json openssl = json::parse(host->body)["openssl_cpu"];
    INFO(openssl.dump());
    CHECK(openssl["aes"] == false);
    CHECK(openssl["aes_hardware"] == "masked");
    CHECK(openssl["words"].size() == 2);
    const auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    INFO(metrics->body);
    CHECK(
        metrics_has_line(metrics->body, R"(hostprobe_openssl_cpu_feature_used{feature="aes"} 0)"));
    CHECK(metrics_has_line(metrics->body,
                           R"(hostprobe_openssl_cpu_feature_used{feature="pclmulqdq"} 1)"));
    CHECK(metrics->body.find(R"(aes_hardware="masked")") != std::string::npos);
    CHECK(promtool_accepts(metrics->body));

    Daemon plain;
    auto plain_client = plain.client();
    const auto plain_host = plain_client.Get("/v1/host");
    REQUIRE(plain_host);
    CHECK(json::parse(plain_host->body)["openssl_cpu"]["aes_hardware"] == "used");
}
