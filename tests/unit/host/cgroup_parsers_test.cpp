// cgroup file parsers against every malformed case in the automaxprocs and num_cpus fixtures
// (tests/fixtures/cgroup, see its README.txt).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "host/cgroup.hpp"
#include "host/mountinfo.hpp"
#include "host/proc_cgroup.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

Result<QuotaSetting> v1(const std::string& dir) {
    return parse_cfs_quota(testing::cgroup_fixture(dir + "/cpu.cfs_quota_us"),
                           testing::cgroup_fixture(dir + "/cpu.cfs_period_us"));
}

}  // namespace

TEST_CASE("cgroup v1 quota files") {
    auto six = v1("automaxprocs/cgroups/cpu");
    REQUIRE(six.ok());
    CHECK(*six->quota_us == 600000);
    CHECK(six->period_us == 100000);
    auto unlimited = v1("automaxprocs/cgroups/undefined");
    REQUIRE(unlimited.ok());
    CHECK_FALSE(unlimited->quota_us.has_value());
    CHECK(*v1("num_cpus/cgroups/cgroups/ceil")->quota_us == 150000);
    CHECK_FALSE(v1("automaxprocs/cgroups/zero-period").ok());
    CHECK_FALSE(v1("num_cpus/cgroups/cgroups/zero-period").ok());
    CHECK_FALSE(
        parse_cfs_quota(testing::cgroup_fixture("automaxprocs/cgroups/empty/cpu.cfs_quota_us"),
                        "100000")
            .ok());
    auto invalid = parse_cfs_quota(
        testing::cgroup_fixture("automaxprocs/cgroups/invalid/cpu.cfs_quota_us"), "100000");
    REQUIRE_FALSE(invalid.ok());
    CHECK(invalid.error().message.find("non-an-integer") != std::string::npos);
    CHECK_FALSE(parse_cfs_quota("-2", "100000").ok());
    CHECK_FALSE(parse_cfs_quota("0", "100000").ok());
}

TEST_CASE("cgroup v2 cpu.max files") {
    const std::string dir = "automaxprocs/cgroups/v2/";
    auto set = parse_cpu_max(testing::cgroup_fixture(dir + "set"));
    REQUIRE(set.ok());
    CHECK(*set->quota_us == 250000);
    CHECK(set->period_us == 100000);
    auto unset = parse_cpu_max(testing::cgroup_fixture(dir + "unset"));
    REQUIRE(unset.ok());
    CHECK_FALSE(unset->quota_us.has_value());
    CHECK(unset->period_us == 100000);
    auto only_max =
        parse_cpu_max(testing::cgroup_fixture(dir + "only-max"));  // default 100 ms period
    REQUIRE(only_max.ok());
    CHECK(*only_max->quota_us == 500000);
    for (const char* bad : {"empty", "invalid-max", "invalid-period", "too-few-fields",
                            "too-many-fields", "zero-period"}) {
        INFO(bad);
        CHECK_FALSE(parse_cpu_max(testing::cgroup_fixture(dir + bad)).ok());
    }
    CHECK(*parse_cpu_max(testing::cgroup_fixture("num_cpus/cgroups2/cgroups/ceil/cpu.max"))
               ->quota_us == 150000);
    CHECK_FALSE(
        parse_cpu_max(testing::cgroup_fixture("num_cpus/cgroups2/cgroups/zero-period/cpu.max"))
            .ok());
}

TEST_CASE("cpu.stat throttling counters: v1 in nanoseconds, v2 in microseconds") {
    auto v1_stat = parse_cpu_stat(testing::cgroup_fixture("extracted/v1_docker/cpu.stat"), 1);
    REQUIRE(v1_stat.ok());
    CHECK(v1_stat->periods == 769021);
    CHECK(v1_stat->throttled_periods == 1046);
    CHECK(v1_stat->throttled_seconds == doctest::Approx(352.597023453));
    auto v2_stat =
        parse_cpu_stat(testing::cgroup_fixture("extracted/v2_docker2_nested/cpu.stat"), 2);
    REQUIRE(v2_stat.ok());
    CHECK(v2_stat->periods == 0);
    auto v2_docker = parse_cpu_stat(testing::cgroup_fixture("extracted/v2_docker/cpu.stat"), 2);
    CHECK(v2_docker->throttled_seconds == doctest::Approx(10e-6));
    auto usage_only = parse_cpu_stat("usage_usec 5\nuser_usec 3\nsystem_usec 2\n", 2);
    REQUIRE_FALSE(usage_only.ok());
    CHECK(usage_only.error().code == ErrorCode::not_found);
    CHECK(parse_cpu_stat("nr_periods x\nnr_throttled 1\nthrottled_time 1\n", 1).error().code ==
          ErrorCode::parse_error);
}

TEST_CASE("memory limits") {
    CHECK(**parse_memory_limit("536870912\n") == 536870912u);
    CHECK_FALSE(parse_memory_limit("9223372036854771712\n")->has_value());
    CHECK_FALSE(parse_memory_limit("max\n")->has_value());
    CHECK_FALSE(parse_memory_limit("lots").ok());
}

TEST_CASE("/proc/self/cgroup lines") {
    const ProcCgroup cgroups =
        parse_proc_cgroup(testing::cgroup_fixture("automaxprocs/proc/cgroups/cgroup"));
    REQUIRE(cgroups.entries.size() == 3);
    CHECK(cgroups.entries[1].controllers == std::vector<std::string>{"cpu", "cpuacct"});
    CHECK(cgroups.entries[1].path == "/docker");
    CHECK(cgroups.warnings.empty());

    const ProcCgroup invalid =
        parse_proc_cgroup(testing::cgroup_fixture("automaxprocs/proc/invalid-cgroup/cgroup"));
    CHECK(invalid.entries.size() == 1);
    CHECK(invalid.warnings.size() == 1);
    CHECK(parse_proc_cgroup(testing::cgroup_fixture("automaxprocs/proc/v2/cgroup-invalid"))
              .warnings.size() == 1);
    const ProcCgroup v2 =
        parse_proc_cgroup(testing::cgroup_fixture("automaxprocs/proc/v2/cgroup-subdir"));
    REQUIRE(v2.entries.size() == 1);
    CHECK(v2.entries[0].is_unified());
    CHECK(v2.entries[0].path == "/Example");
    const ProcCgroup multi =
        parse_proc_cgroup(testing::cgroup_fixture("num_cpus/cgroups2/proc/cgroups/cgroup_multi"));
    CHECK(multi.entries.size() == 3);
    const ProcCgroup no_newline = parse_proc_cgroup(
        testing::cgroup_fixture("extracted/v2_docker2_nested/proc_2233801_cgroup"));
    REQUIRE(no_newline.entries.size() == 1);
    CHECK(no_newline.entries[0].path == "/../../user-1000.slice/session-520.scope");
}

TEST_CASE("/proc/self/mountinfo lines") {
    const MountInfo mounts =
        parse_mountinfo(testing::cgroup_fixture("automaxprocs/proc/cgroups/mountinfo"));
    CHECK(mounts.warnings.empty());
    bool found = false;
    for (const auto& mount : mounts.entries) {
        if (mount.mount_point == "/sys/fs/cgroup/cpu,cpuacct") {
            found = true;
            CHECK(mount.root == "/docker");
            CHECK(mount.fs_type == "cgroup");
            CHECK(mount.has_super_option("cpu"));
            CHECK(mount.has_super_option("cpuacct"));
        }
    }
    CHECK(found);
    CHECK(parse_mountinfo(testing::cgroup_fixture("automaxprocs/proc/invalid-mountinfo/mountinfo"))
              .warnings.size() == 1);
    CHECK(parse_mountinfo(
              testing::cgroup_fixture("num_cpus/cgroups/proc/cgroups/mountinfo_multi_opt"))
              .warnings.empty());
    CHECK(
        parse_mountinfo(testing::cgroup_fixture("num_cpus/cgroups/proc/cgroups/mountinfo_zero_opt"))
            .warnings.empty());
    const MountInfo escaped =
        parse_mountinfo("1 0 0:1 / /mnt/with\\040space rw - ext4 /dev/x rw\n");
    REQUIRE(escaped.entries.size() == 1);
    CHECK(escaped.entries[0].mount_point == "/mnt/with space");
}

TEST_CASE("a cpu.max quota or period too large for 64 bits is reported as out of range") {
    // It was "neither 'max' nor a positive integer", which it is.
    const auto quota = parse_cpu_max("99999999999999999999 100000\n");
    REQUIRE_FALSE(quota.ok());
    CHECK(quota.error().message ==
          "cpu.max quota 99999999999999999999 is out of range (at most 2^63-1): "
          "'99999999999999999999 100000'");
    const auto period = parse_cpu_max("max 99999999999999999999");
    REQUIRE_FALSE(period.ok());
    CHECK(period.error().message.find("cpu.max period 99999999999999999999 is out of range") == 0);
    // What is not a positive number keeps saying so.
    CHECK(parse_cpu_max("-5 100000").error().message ==
          "cpu.max quota is neither 'max' nor a positive integer: '-5 100000'");
    CHECK(parse_cpu_max("0 100000").error().message.find("nor a positive integer") !=
          std::string::npos);
    CHECK(parse_cpu_max("lots 100000").error().message.find("nor a positive integer") !=
          std::string::npos);
    CHECK(parse_cpu_max("max 0").error().message ==
          "cpu.max period is not a positive integer: 'max 0'");
    CHECK(*parse_cpu_max("9223372036854775807 100000")->quota_us == INT64_MAX);
}
