// End to end: the series of a cipher run made inside a real child cgroup with a CPU quota, as a
// 0.25 vCPU Fargate task runs: the CFS rhythm in the 100 ms slices, and a quota lowered mid-run
// found where it happened.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/quota_cgroup.hpp"
#include "support/skip.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::string cgroup_name(const char* what) {
    return "hostprobe-test-" + std::to_string(::getpid()) + "-" + what;
}

// `hostprobe run cipher --json` with one thread on one cell, for `seconds`, inside `cgroup`.
std::vector<std::string> cipher_run_in(const QuotaCgroup& cgroup, const std::string& seconds) {
    return cgroup.wrap({binary(), "run", "cipher", "--ciphers", "aes-128-ctr", "--block-sizes",
                        "8192", "--threads", "1", "--seconds", seconds, "--json"});
}

json finished_run(Process& run) {
    const ExitStatus status = run.wait(120s);
    REQUIRE_MESSAGE(status.exited, run.errors());
    REQUIRE_MESSAGE(status.code == 0, run.errors());
    return json::parse(run.output());
}

// "2026-12-05T03:49:02.934Z" as the system clock's time point.
std::chrono::system_clock::time_point parse_utc(const std::string& text) {
    std::tm parts{};
    int milliseconds = 0;
    REQUIRE(std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &parts.tm_year, &parts.tm_mon,
                        &parts.tm_mday, &parts.tm_hour, &parts.tm_min, &parts.tm_sec,
                        &milliseconds) == 7);
    parts.tm_year -= 1900;
    parts.tm_mon -= 1;
    return std::chrono::system_clock::from_time_t(timegm(&parts)) +
           std::chrono::milliseconds(milliseconds);
}

}  // namespace

TEST_CASE("under a 0.25 CPU quota most 100 ms slices are throttled and get about 25 ms of CPU" *
          doctest::test_suite("serial")) {
    QuotaCgroup cgroup(cgroup_name("quarter"), 0.25);
    if (!cgroup.usable()) SKIP_TEST(cgroup.reason());
    json run;
    {
        Process cipher("/bin/sh", cipher_run_in(cgroup, "4"));
        run = finished_run(cipher);
    }
    const json& series = run["result"]["series"];
    REQUIRE(series.is_array());
    size_t fine = 0, throttled = 0;
    double seconds = 0, cpu = 0;
    for (const auto& slice : series) {
        // The 100 ms slices while the cipher ran (not the set-up before it).
        if (!slice.contains("phase") || slice["seconds"].get<double>() > 0.15) continue;
        ++fine;
        if (slice["throttled_periods"].get<uint64_t>() > 0) ++throttled;
        seconds += slice["seconds"].get<double>();
        cpu += slice["cpu_seconds"].get<double>();
    }
    INFO(run["result"]["series"].dump());
    // 4 s of cipher make about 40 such slices; set-up under the quota may take the first few.
    REQUIRE(fine >= 30);
    CHECK(throttled * 10 >= fine * 7);  // most: the rest straddle no period's end
    const double cpu_ms_per_100ms = cpu / seconds * 100;
    CHECK(cpu_ms_per_100ms > 15);
    CHECK(cpu_ms_per_100ms < 35);
    const std::string explanation = run["result"]["explanation"];
    CHECK(explanation.find("of every 100 ms throttled") != std::string::npos);
}

TEST_CASE("a quota lowered half way through a run shows in its series within 2 s of the change" *
          doctest::test_suite("serial")) {
    // Two CPUs at first: the one measuring thread, with the sampler and (under a sanitizer) its
    // runtime's threads, is never throttled before the change.
    QuotaCgroup cgroup(cgroup_name("lowered"), 2.0);
    if (!cgroup.usable()) SKIP_TEST(cgroup.reason());
    Process cipher("/bin/sh", cipher_run_in(cgroup, "8"));
    // Well into the measurement (3 s of the cgroup's CFS periods with work in them), the quota
    // drops to a tenth of a CPU.
    REQUIRE(eventually([&] { return cgroup.busy_periods() >= 30; }, 60s));
    REQUIRE(cgroup.set_cores(0.1));
    const auto lowered_at = std::chrono::system_clock::now();
    const json run = finished_run(cipher);

    const json& result = run["result"];
    INFO(result["series"].dump());
    REQUIRE(result.contains("series_change"));
    const json& change = result["series_change"];
    CHECK(change["measure"] == "work_per_second");
    CHECK(change["after"].get<double>() < change["before"].get<double>() * 0.7);
    const double expected =
        std::chrono::duration<double>(lowered_at - parse_utc(run["started_at"])).count();
    CHECK(std::abs(change["at_seconds"].get<double>() - expected) <= 2.0);
    const std::string explanation = result["explanation"];
    CHECK(explanation.find("throughput fell") != std::string::npos);
    CHECK(explanation.find("the CPU quota was lowered during the run") != std::string::npos);
}
