// The scrape-time parsers of issue 17 over real and synthetic files (tests/fixtures/cgroup/usage,
// see its README.txt): cgroup CPU use (v1 cpuacct, v2 cpu.stat), PSI, memory usage and
// memory.events, and steal summed over a cpuset. Also a live read of this machine's files.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "host/cgroup.hpp"
#include "host/cgroup_memory.hpp"
#include "host/cgroup_usage.hpp"
#include "host/pressure.hpp"
#include "host/proc_stat.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {}  // namespace

TEST_CASE("cgroup v1 CPU use: cpuacct.usage in ns, cpuacct.stat in USER_HZ ticks") {
    auto total = parse_cpuacct_usage(testing::cgroup_fixture("usage/v1_host/cpuacct.usage"));
    REQUIRE(total.ok());
    CHECK(*total == doctest::Approx(5894.769561794));
    auto split = parse_cpuacct_stat(testing::cgroup_fixture("usage/v1_host/cpuacct.stat"), 100);
    REQUIRE(split.ok());
    CHECK(*split->user_seconds == doctest::Approx(4798.54));
    CHECK(*split->system_seconds == doctest::Approx(1096.22));
    CHECK(split->total_seconds == doctest::Approx(5894.76));

    auto no_system =
        parse_cpuacct_stat(testing::cgroup_fixture("usage/malformed/cpuacct.stat.no-system"), 100);
    REQUIRE_FALSE(no_system.ok());
    CHECK(no_system.error().code == ErrorCode::parse_error);
    CHECK(no_system.error().message.find("system") != std::string::npos);
    CHECK_FALSE(parse_cpuacct_usage("").ok());
    CHECK_FALSE(parse_cpuacct_usage("-1\n").ok());
    CHECK_FALSE(parse_cpuacct_usage("12 34\n").ok());
}

TEST_CASE("cgroup v1 CPU use: 2^64-1 ns parses, 2^64 is out of range") {
    auto max = parse_cpuacct_usage(testing::cgroup_fixture("usage/huge/cpuacct.usage.u64-max"));
    REQUIRE(max.ok());
    CHECK(*max == doctest::Approx(18446744073.709551615));
    auto overflow =
        parse_cpuacct_usage(testing::cgroup_fixture("usage/huge/cpuacct.usage.overflow"));
    REQUIRE_FALSE(overflow.ok());
    CHECK(overflow.error().code == ErrorCode::parse_error);
}

TEST_CASE("cgroup v2 CPU use: cpu.stat usage_usec, user_usec and system_usec") {
    auto docker = parse_cpu_stat_usage(testing::cgroup_fixture("extracted/v2_docker/cpu.stat"));
    REQUIRE(docker.ok());
    CHECK(docker->total_seconds == doctest::Approx(26772.130245));
    CHECK(*docker->user_seconds == doctest::Approx(20979.069928));
    CHECK(*docker->system_seconds == doctest::Approx(5793.060316));
    auto newer =
        parse_cpu_stat_usage(testing::cgroup_fixture("extracted/v2_docker2_nested/cpu.stat"));
    REQUIRE(newer.ok());
    CHECK(newer->total_seconds == doctest::Approx(3611.347518));

    auto only_total = parse_cpu_stat_usage("usage_usec 5000000\n");
    REQUIRE(only_total.ok());
    CHECK(only_total->total_seconds == 5.0);
    CHECK_FALSE(only_total->user_seconds.has_value());

    auto missing =
        parse_cpu_stat_usage(testing::cgroup_fixture("usage/malformed/cpu.stat.no-usage"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == ErrorCode::parse_error);
    CHECK_FALSE(parse_cpu_stat_usage("usage_usec 1\nuser_usec x\n").ok());
}

TEST_CASE("PSI: some and full totals in seconds, from the host and cgroup v2 files") {
    auto cpu = parse_pressure(testing::cgroup_fixture("usage/pressure_host/cpu"));
    REQUIRE(cpu.ok());
    CHECK(cpu->some_seconds == doctest::Approx(1281.605244));
    CHECK(cpu->full_seconds == 0.0);
    auto io = parse_pressure(testing::cgroup_fixture("usage/pressure_host/io"));
    REQUIRE(io.ok());
    CHECK(io->some_seconds == doctest::Approx(12.692362));
    CHECK(*io->full_seconds == doctest::Approx(6.554516));
    REQUIRE(parse_pressure(testing::cgroup_fixture("usage/pressure_host/memory")).ok());

    auto cgroup = parse_pressure(testing::cgroup_fixture("usage/v2/cpu.pressure"));
    REQUIRE(cgroup.ok());
    CHECK(cgroup->some_seconds == doctest::Approx(73.150934));
    CHECK(*cgroup->full_seconds == doctest::Approx(61.834122));
    auto old_kernel = parse_pressure(testing::cgroup_fixture("usage/v2/cpu.pressure.pre-5.13"));
    REQUIRE(old_kernel.ok());
    CHECK_FALSE(old_kernel->full_seconds.has_value());
}

TEST_CASE("PSI: malformed and out-of-range files are parse errors") {
    for (const char* name :
         {"usage/malformed/pressure.bad-total", "usage/malformed/pressure.no-total",
          "usage/huge/pressure.total-overflow"}) {
        INFO(name);
        auto parsed = parse_pressure(testing::cgroup_fixture(name));
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().code == ErrorCode::parse_error);
    }
    CHECK_FALSE(parse_pressure("").ok());
    CHECK_FALSE(parse_pressure("full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n").ok());
    CHECK_FALSE(parse_pressure("some total=1\nsome total=2\n").ok());
    CHECK_FALSE(parse_pressure("some avg10=101.00 total=1\n").ok());
    CHECK_FALSE(parse_pressure("some avg10=nan total=1\n").ok());
    CHECK_FALSE(parse_pressure("partial total=1\n").ok());
    // A later kernel's extra key is skipped.
    CHECK(parse_pressure("some avg10=0.00 avg1200=0.00 total=7\n").ok());
}

TEST_CASE("memory usage and memory.events") {
    auto v1 = parse_memory_usage(testing::cgroup_fixture("usage/v1_host/memory.usage_in_bytes"));
    REQUIRE(v1.ok());
    CHECK(*v1 == 747675648u);
    CHECK(parse_memory_usage(testing::cgroup_fixture("usage/v2/memory.current")).value_or(0) ==
          268435456u);
    CHECK_FALSE(
        parse_memory_usage(testing::cgroup_fixture("usage/malformed/memory.current.negative"))
            .ok());

    auto events = parse_memory_events(testing::cgroup_fixture("usage/v2/memory.events"));
    REQUIRE(events.ok());
    CHECK(*events == MemoryEvents{{"low", 0},
                                  {"high", 14},
                                  {"max", 3},
                                  {"oom", 1},
                                  {"oom_kill", 1},
                                  {"oom_group_kill", 0}});
    auto bad =
        parse_memory_events(testing::cgroup_fixture("usage/malformed/memory.events.bad-count"));
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == ErrorCode::parse_error);
    auto huge = parse_memory_events(testing::cgroup_fixture("usage/huge/memory.events.u64-max"));
    REQUIRE(huge.ok());
    CHECK(huge->at(1).second == 18446744073709551615u);
    // Unknown keys are skipped (bounded labels); a reported key twice is an error.
    auto unknown = parse_memory_events("oom_kill 2\nsock_throttled 9\n");
    REQUIRE(unknown.ok());
    CHECK(*unknown == MemoryEvents{{"oom_kill", 2}});
    CHECK_FALSE(parse_memory_events("oom 1\noom 2\n").ok());
    CHECK_FALSE(parse_memory_events("oom 1 2\n").ok());
}

TEST_CASE("steal over the CPUs of our cpuset") {
    const std::string stat =
        "cpu  10 0 10 100 0 0 0 70 0 0\n"
        "cpu0 5 0 5 50 0 0 0 30 0 0\n"
        "cpu1 5 0 5 50 0 0 0 40 0 0\n"
        "intr 1 2 3\n";
    CHECK(*parse_steal_seconds(stat, 100, CpuSet()) == doctest::Approx(0.70));
    CHECK(*parse_steal_seconds(stat, 100, *CpuSet::parse_list("0-1")) == doctest::Approx(0.70));
    CHECK(*parse_steal_seconds(stat, 100, *CpuSet::parse_list("1")) == doctest::Approx(0.40));
    // CPU 3 is not listed (offline): it counts nothing.
    CHECK(*parse_steal_seconds(stat, 100, *CpuSet::parse_list("0,3")) == doctest::Approx(0.30));
    auto none = parse_steal_seconds(stat, 100, *CpuSet::parse_list("5"));
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().code == ErrorCode::not_found);
    CHECK_FALSE(
        parse_steal_seconds("cpu 1 2 3\ncpu0 1 2 3\ncpu1 1 2 3\n", 100, *CpuSet::parse_list("0"))
            .ok());
    CHECK_FALSE(parse_steal_seconds("cpu0 0 0 0 0 0 0 0 x\ncpu1 0 0 0 0 0 0 0 1\n", 100,
                                    *CpuSet::parse_list("0"))
                    .ok());
    CHECK_FALSE(parse_steal_seconds("cpu0 0 0 0 0 0 0 0 18446744073709551615\n"
                                    "cpu1 0 0 0 0 0 0 0 1\ncpu2 0 0 0 0 0 0 0 1\n",
                                    100, *CpuSet::parse_list("0-1"))
                    .ok());
}

TEST_CASE("live: this machine's PSI, cpuacct and /proc/stat parse") {
    const SysRoot root("/");
    int read = 0;
    for (auto resource : kPressureResources) {
        auto totals = read_host_pressure(root, resource);
        REQUIRE_MESSAGE(totals.ok(), totals.error().message);
        if (!*totals) continue;
        ++read;
        CHECK((*totals)->some_seconds >= 0);
    }
    CHECK(read_steal_seconds(root, *CpuSet::parse_list("0")).ok());
    const CgroupFacts cgroup = read_cgroup_facts(root);
    if (cgroup.cpu_usage_source) {
        auto usage = read_cgroup_cpu_usage(root, *cgroup.cpu_usage_source, sysconf(_SC_CLK_TCK));
        REQUIRE_MESSAGE(usage.ok(), usage.error().message);
        CHECK(usage->total_seconds > 0);
    }
    if (cgroup.memory_source) {
        auto memory = read_cgroup_memory_usage(root, *cgroup.memory_source);
        REQUIRE_MESSAGE(memory.ok(), memory.error().message);
        CHECK(*memory > 0);
    }
    if (read == 0) SKIP_TEST("no /proc/pressure here (PSI off)");
}
