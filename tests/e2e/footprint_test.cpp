// What the idle agent keeps resident (issue 29): nothing it does not use.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <string>

#include "support/daemon.hpp"

using namespace hostprobe::testing;

namespace {

// Resident KiB of the executable mappings of files whose name contains `library`, from
// /proc/<pid>/smaps; -1 when no such mapping is there.
long resident_code_kib(int pid, const std::string& library) {
    std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
    const std::regex mapping(R"(^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \S+\s*(.*)$)");
    long total = -1;
    bool counted = false;
    std::string line;
    while (std::getline(smaps, line)) {
        std::smatch match;
        if (std::regex_match(line, match, mapping)) {
            counted = match[1].str()[2] == 'x' && match[2].str().find(library) != std::string::npos;
            if (counted && total < 0) total = 0;
        } else if (counted && line.rfind("Rss:", 0) == 0) {
            total += std::stol(line.substr(4));
        }
    }
    return total;
}

}  // namespace

TEST_CASE("an idle agent has not loaded OpenSSL's error strings, which only TLS and errors need") {
    // cpp-httplib's static initialiser would load them all (src/app/openssl_string_deferral.cpp):
    // 1.6 MiB of libcrypto's code resident on this machine, against 0.25 MiB without.
    Daemon daemon;
    auto client = daemon.client();
    for (const char* path : {"/metrics", "/v1/host", "/", "/healthz"}) {
        auto answer = client.Get(path);
        REQUIRE(answer);
        CHECK(answer->status == 200);
    }
    const long libcrypto_kib = resident_code_kib(daemon.process.pid(), "libcrypto");
    INFO("libcrypto's code resident: " << libcrypto_kib << " KiB");
    REQUIRE(libcrypto_kib >= 0);
    CHECK(libcrypto_kib < 1024);
}
