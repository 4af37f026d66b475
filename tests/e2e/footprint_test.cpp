// What the idle agent keeps resident (issue 29): nothing it does not use.
#include <doctest/doctest.h>
#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "http/bounded_pool.hpp"
#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/resident_memory.hpp"
#include "support/skip.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

// Threads of a process that serve HTTP (named so by the pool).
int serving_threads(const std::string& pid) {
    int count = 0;
    const std::filesystem::path tasks = "/proc/" + pid + "/task";
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        if (std::getline(comm, name) && name == hostprobe::http::BoundedPool::kThreadName) ++count;
    }
    return count;
}

// A process's anonymous memory once it holds still: the same figure twice, a trimmer's pass
// (2 s) apart.
long settled_anonymous_kib(const std::string& pid) {
    long settled = -1;
    REQUIRE(eventually(
        [&] {
            const long now = anonymous_kib(pid);
            const bool same = now == settled;
            settled = now;
            return same;
        },
        30s, 2500ms));
    return settled;
}

// One GET of what a person or Prometheus asks for; GET /openapi.json prints 1.3 MiB.
void get_every_endpoint(httplib::Client& client) {
    for (const char* path : {"/metrics", "/v1/host", "/v1/runs", "/openapi.json"}) {
        auto answer = client.Get(path);
        REQUIRE(answer);
        REQUIRE(answer->status == 200);
    }
}

}  // namespace

TEST_CASE("what a burst of answers allocated goes back to the system within seconds") {
    // Eight GET /openapi.json at once (1.3 MiB printed each). glibc's per-thread cache keeps
    // freed chunks of each thread that served, and malloc_trim cannot release a page one of
    // them sits on: with threads that lived forever, 2.3 MiB more anonymous memory stayed.
    // Serving threads now end after 5 s without work, and the trimmer counts their ends.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    SKIP_TEST(
        "a sanitizer's allocator keeps freed memory (its quarantine); malloc_trim is glibc's");
#endif
    Daemon daemon;
    auto client = daemon.client();
    const std::string pid = std::to_string(daemon.process.pid());
    get_every_endpoint(client);
    auto run = client.Post("/v1/runs?wait=30", R"({"probe": "cpu"})", "application/json");
    REQUIRE(run);
    REQUIRE(run->status == 200);
    // Until the serving threads have ended: then the agent is idle.
    REQUIRE(eventually([&] { return serving_threads(pid) == 0; }, 30s));
    const long settled = settled_anonymous_kib(pid);

    std::vector<std::thread> burst;
    std::atomic<int> answered{0};
    for (int i = 0; i < 8; ++i)
        burst.emplace_back([&] {
            auto own = daemon.client();
            auto answer = own.Get("/openapi.json");
            if (answer && answer->status == 200) ++answered;
        });
    for (auto& thread : burst)
        thread.join();
    REQUIRE(answered.load() == 8);
    INFO("serving threads after the burst: " << serving_threads(pid));
    CHECK(serving_threads(pid) >= 1);

    long after = anonymous_kib(pid);
    // The threads idle 5 s, then the trimmer's next pass (2 s): 30 s is slack for slow machines,
    // and less than the minute after which the trimmer would trim anyway.
    CHECK(eventually([&] { return (after = anonymous_kib(pid)) <= settled + 512; }, 30s, 100ms));
    INFO("anonymous KiB settled " << settled << ", after eight GET /openapi.json " << after);
    CHECK(after <= settled + 512);
    CHECK(eventually([&] { return serving_threads(pid) == 0; }, 30s));
}

TEST_CASE("what a run's large buffers took goes back to the system when the run ends") {
    // glibc raises its mmap threshold to the size of the first large block freed, so a run's
    // buffers after that came from the arenas, whose tops malloc_trim does not shrink: a disk
    // run after GET /openapi.json left 0.7-1 MiB for good. serve fixes glibc's defaults.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    SKIP_TEST("a sanitizer's allocator is not glibc's: mallopt does not reach it");
#endif
    TempTree directory;
    Daemon daemon({"--disk-dir", directory.root()});
    auto client = daemon.client();
    const std::string pid = std::to_string(daemon.process.pid());
    const std::string disk_run = R"({"probe": "disk", "params": {"directory": ")" +
                                 directory.root() + R"(", "size": "16m", "runtime": 1}})";
    get_every_endpoint(
        client);  // GET /openapi.json frees a large block: glibc's threshold would rise
    const long settled = settled_anonymous_kib(pid);
    auto run = client.Post("/v1/runs?wait=60", disk_run, "application/json");
    REQUIRE(run);
    REQUIRE(run->status == 200);
    CHECK(nlohmann::json::parse(run->body)["state"] == "succeeded");
    get_every_endpoint(client);
    long after = -1;
    CHECK(eventually([&] { return (after = anonymous_kib(pid)) <= settled + 256; }, 30s, 100ms));
    INFO("anonymous KiB before a disk run " << settled << ", after it " << after);
    CHECK(after <= settled + 256);
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
    const long libcrypto_kib = resident_code_kib(std::to_string(daemon.process.pid()), "libcrypto");
    INFO("libcrypto's code resident: " << libcrypto_kib << " KiB");
    REQUIRE(libcrypto_kib >= 0);
    CHECK(libcrypto_kib < 1024);
}

TEST_CASE("what a finished run ran leaves the agent's RSS: libcrypto's ciphers, the probe's code") {
    // Pages of code and read-only data are the files' own; the trimmer drops them from the
    // agent's page tables after each run (app/unwritten_pages), and what runs again faults
    // them back in. Before, a cipher run left about 2 MiB of libcrypto resident for good.
    Daemon daemon;
    auto client = daemon.client();
    const std::string pid = std::to_string(daemon.process.pid());
    auto run = client.Post(
        "/v1/runs?wait=60",
        R"({"probe": "cipher", "params": {"ciphers": ["aes-128-gcm", "chacha20"], "seconds": 0.2}})",
        "application/json");
    REQUIRE(run);
    REQUIRE(run->status == 200);
    long libcrypto_kib = -1;
    CHECK(eventually([&] { return (libcrypto_kib = resident_code_kib(pid, "libcrypto")) < 512; },
                     20s, 100ms));
    INFO("libcrypto's code resident after the run: " << libcrypto_kib << " KiB");
    CHECK(libcrypto_kib >= 0);
    CHECK(libcrypto_kib < 512);
    // Everything still answers, its code faulted back in.
    for (const char* path : {"/metrics", "/v1/host", "/v1/runs", "/openapi.json", "/"}) {
        auto answer = client.Get(path);
        REQUIRE(answer);
        CHECK(answer->status == 200);
    }
}

TEST_CASE("what binding functions at their first call read does not stay: the linker's tables") {
    // libstdc++ is bound lazily: each function's first call searched every library's symbol
    // tables, after the trimmer's start-up drop, and they stayed: its read-only mappings held
    // 656 KiB of an idle agent after every endpoint, 112 without them (its relocated vtables).
    // The trimmer drops the tables again on each pass that trims (app/unwritten_pages.hpp).
#if !defined(__x86_64__)
    SKIP_TEST(
        "the tables have segments of their own where objects are linked with -z "
        "separate-code, Debian's default on x86-64 only");
#endif
    Daemon daemon;
    auto client = daemon.client();
    const std::string pid = std::to_string(daemon.process.pid());
    long read_only_kib = -1;
    auto tables_dropped = [&] {
        return (read_only_kib = resident_read_only_kib(pid, "libstdc++")) < 256;
    };
    REQUIRE(eventually(tables_dropped, 20s, 100ms));  // the start-up drop
    for (const char* path :
         {"/metrics", "/v1/host", "/v1/runs", "/openapi.json", "/", "/healthz"}) {
        auto answer = client.Get(path);
        REQUIRE(answer);
        CHECK(answer->status == 200);
    }
    CHECK(eventually(tables_dropped, 20s, 100ms));
    INFO("libstdc++'s read-only data resident after every endpoint: " << read_only_kib << " KiB");
    CHECK(read_only_kib >= 0);
    CHECK(read_only_kib < 256);
}
