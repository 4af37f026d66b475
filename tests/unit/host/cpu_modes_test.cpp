// /proc/stat's time per CPU mode summed over our cpuset (hostprobe_cpu_seconds_total), over the
// texts in tests/fixtures/proc_stat (see its README.txt): the aggregate line, a cpuset subset,
// old kernels' short lines, malformed lines.
#include <doctest/doctest.h>

#include "host/proc_stat.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

std::string proc_stat_fixture(const std::string& name) {
    return testing::fixture_text("proc_stat/" + name);
}

}  // namespace

TEST_CASE("cpu modes: the aggregate line when the cpuset is empty or covers every CPU") {
    const std::string stat = proc_stat_fixture("four-cpus");
    for (const char* list : {"", "0-3", "0-7"}) {
        CAPTURE(list);
        const CpuSet allowed = *list ? *CpuSet::parse_list(list) : CpuSet();
        auto modes = parse_cpu_mode_seconds(stat, 100, allowed);
        REQUIRE(modes.ok());
        CHECK(modes->modes == 8);
        CHECK(modes->seconds[0] == doctest::Approx(40.00));   // user
        CHECK(modes->seconds[1] == doctest::Approx(4.00));    // nice
        CHECK(modes->seconds[2] == doctest::Approx(20.00));   // system
        CHECK(modes->seconds[3] == doctest::Approx(800.00));  // idle
        CHECK(modes->seconds[4] == doctest::Approx(8.00));    // iowait
        CHECK(modes->seconds[5] == doctest::Approx(0.40));    // irq
        CHECK(modes->seconds[6] == doctest::Approx(1.20));    // softirq
        CHECK(modes->seconds[7] == doctest::Approx(3.60));    // steal
    }
}

TEST_CASE("cpu modes: a cpuset subset sums its CPUs' lines, ignoring offline ones") {
    const std::string stat = proc_stat_fixture("four-cpus");
    auto modes = parse_cpu_mode_seconds(stat, 100, *CpuSet::parse_list("1-2,9"));
    REQUIRE(modes.ok());
    CHECK(modes->modes == 8);
    CHECK(modes->seconds[0] == doctest::Approx(20.00));
    CHECK(modes->seconds[3] == doctest::Approx(400.00));
    CHECK(modes->seconds[7] == doctest::Approx(1.80));
    // The same choice as the steal metric, so the two agree.
    CHECK(*parse_steal_seconds(stat, 100, *CpuSet::parse_list("1-2,9")) ==
          doctest::Approx(modes->seconds[7]));
    // USER_HZ other than 100; 0 (sysconf failed) falls back to 100.
    CHECK(parse_cpu_mode_seconds(stat, 1000, *CpuSet::parse_list("0"))->seconds[0] ==
          doctest::Approx(1.0));
    CHECK(parse_cpu_mode_seconds(stat, 0, *CpuSet::parse_list("0"))->seconds[0] ==
          doctest::Approx(10.0));
    auto none = parse_cpu_mode_seconds(stat, 100, *CpuSet::parse_list("8"));
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().code == ErrorCode::not_found);
}

TEST_CASE("cpu modes: old kernels' short lines give only the modes they have") {
    auto no_steal =
        parse_cpu_mode_seconds(proc_stat_fixture("linux-2.6.10"), 100, *CpuSet::parse_list("0"));
    REQUIRE(no_steal.ok());
    CHECK(no_steal->modes == 7);
    CHECK(no_steal->seconds[6] == doctest::Approx(0.60));
    CHECK(no_steal->seconds[7] == 0);
    auto oldest = parse_cpu_mode_seconds(proc_stat_fixture("linux-2.4"), 100, CpuSet());
    REQUIRE(oldest.ok());
    CHECK(oldest->modes == 4);
    CHECK(oldest->seconds[3] == doctest::Approx(800.0));
    // Lines of different lengths: the modes every counted line has.
    auto mixed = parse_cpu_mode_seconds("cpu0 1 2 3 4 5 6 7 8\ncpu1 1 2 3 4\ncpu2 1 2 3 4 5\n", 100,
                                        *CpuSet::parse_list("0-1"));
    REQUIRE(mixed.ok());
    CHECK(mixed->modes == 4);
}

TEST_CASE("cpu modes: malformed lines are errors, not numbers") {
    CHECK_FALSE(
        parse_cpu_mode_seconds(proc_stat_fixture("malformed-mode"), 100, *CpuSet::parse_list("1"))
            .ok());
    // The aggregate line is all that is read when the set covers every CPU.
    CHECK(parse_cpu_mode_seconds(proc_stat_fixture("malformed-mode"), 100, CpuSet()).ok());
    CHECK_FALSE(
        parse_cpu_mode_seconds(proc_stat_fixture("short-line"), 100, *CpuSet::parse_list("1"))
            .ok());
    CHECK(parse_cpu_mode_seconds(proc_stat_fixture("short-line"), 100, *CpuSet::parse_list("0"))
              .ok());
    CHECK_FALSE(parse_cpu_mode_seconds("cpu 1 2 3\n", 100, CpuSet()).ok());
    CHECK_FALSE(parse_cpu_mode_seconds("cpu -1 2 3 4\n", 100, CpuSet()).ok());
    CHECK_FALSE(parse_cpu_mode_seconds("intr 1 2 3\n", 100, CpuSet()).ok());
    CHECK_FALSE(parse_cpu_mode_seconds("", 100, *CpuSet::parse_list("0")).ok());
    CHECK_FALSE(parse_cpu_mode_seconds("cpu0 18446744073709551615 0 0 0\n"
                                       "cpu1 1 0 0 0\ncpu2 1 0 0 0\n",
                                       100, *CpuSet::parse_list("0-1"))
                    .ok());
    // "cpufreq"-like names are not CPU lines.
    auto named = parse_cpu_mode_seconds("cpu 4 0 0 0\ncpuX 1 1 1 1\ncpu0 4 0 0 0\n", 100,
                                        *CpuSet::parse_list("0"));
    REQUIRE(named.ok());
    CHECK(named->seconds[0] == doctest::Approx(0.04));
}

TEST_CASE("cpu modes: this machine's /proc/stat parses") {
    auto modes = read_cpu_mode_seconds(SysRoot("/"), CpuSet());
    REQUIRE(modes.ok());
    CHECK(modes->modes == 8);
    CHECK(modes->seconds[3] > 0);
}
