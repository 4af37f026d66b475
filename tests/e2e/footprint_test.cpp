// What the idle agent keeps resident (issue 29): nothing it does not use.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <string>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/skip.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

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

// RssAnon of /proc/<pid>/status in KiB; -1 when unreadable.
long anonymous_kib(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("RssAnon:", 0) == 0) return std::stol(line.substr(8));
    }
    return -1;
}

}  // namespace

TEST_CASE("what a burst of answers allocated goes back to the system within seconds") {
    // GET /openapi.json prints 1.3 MiB; the trimmer hands it back after the burst, also when
    // the agent has already settled after a run (it once kept it: too few new page faults).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    SKIP_TEST(
        "a sanitizer's allocator keeps freed memory (its quarantine); malloc_trim is glibc's");
#endif
    Daemon daemon;
    auto client = daemon.client();
    auto get = [&](const char* path) {
        auto answer = client.Get(path);
        REQUIRE(answer);
        REQUIRE(answer->status == 200);
    };
    const int pid = daemon.process.pid();
    // Settled: the same figure twice, a trimmer's pass apart.
    auto settled_anonymous_kib = [&] {
        long settled = -1;
        REQUIRE(eventually(
            [&] {
                const long now = anonymous_kib(pid);
                const bool same = now == settled;
                settled = now;
                return same;
            },
            20s, 2500ms));
        return settled;
    };
    for (const char* path : {"/metrics", "/v1/host", "/v1/runs", "/openapi.json"})
        get(path);
    settled_anonymous_kib();
    auto run = client.Post("/v1/runs?wait=30", R"({"probe": "cpu"})", "application/json");
    REQUIRE(run);
    REQUIRE(run->status == 200);
    get("/v1/runs");
    const long settled = settled_anonymous_kib();
    get("/openapi.json");
    long after = anonymous_kib(pid);
    const auto asked = std::chrono::steady_clock::now();
    // Normally at the trimmer's next pass (2 s); once, on a machine running two CI runs at once,
    // not within 10 s (not understood yet): the minute's forced trim bounds it for certain.
    CHECK(eventually([&] { return (after = anonymous_kib(pid)) <= settled + 512; }, 70s, 100ms));
    const auto took = std::chrono::steady_clock::now() - asked;
    INFO("anonymous KiB settled " << settled << ", after GET /openapi.json " << after);
    CHECK(after <= settled + 512);
    WARN_MESSAGE(took < 10s, "the trimmer took "
                                 << std::chrono::duration_cast<std::chrono::seconds>(took).count()
                                 << " s: not at its next pass");
}

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
