// Locating our cgroup and reading its limits from whole /proc + /sys trees: real captures from
// tests/fixtures/cgroup/extracted arranged into sysroots, and the layouts hostprobe meets
// (podman on this host's split cpu/cpuacct v1, ECS's co-mounted cpu,cpuacct, v2 namespaces).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "core/strings.hpp"
#include "host/cgroup.hpp"
#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::host;
using hostprobe::testing::TempTree;

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// The path of the /proc/self/cgroup line for these controllers.
std::string path_of(const std::string& proc_cgroup, const std::string& controllers) {
    for (std::string_view line : split_lines(proc_cgroup)) {
        const auto fields = split(line, ':');
        if (fields.size() == 3 && fields[1] == controllers) return std::string(fields[2]);
    }
    FAIL("no cgroup line for '" << controllers << "'");
    return "";
}

CgroupFacts facts_of(const TempTree& tree) {
    return read_cgroup_facts(SysRoot(tree.root()));
}

bool has_warning_containing(const CgroupFacts& facts, const std::string& text) {
    for (const auto& warning : facts.warnings) {
        if (warning.find(text) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("podman on this host: cpu and cpuacct are separate v1 hierarchies") {
    TempTree tree;
    const std::string path = "/libpod_parent/libpod-4c1d";
    tree.write("proc/self/cgroup",
               "4:memory:" + path + "\n2:cpuacct:" + path + "\n1:cpu:" + path + "\n0::/\n")
        .write("proc/self/mountinfo",
               "30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
               "31 30 0:27 " +
                   path +
                   " /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu\n"
                   "32 30 0:28 " +
                   path +
                   " /sys/fs/cgroup/cpuacct ro,nosuid - cgroup cgroup rw,cpuacct\n"
                   "33 30 0:29 " +
                   path +
                   " /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
                   "34 30 0:30 / /sys/fs/cgroup/unified ro,nosuid - cgroup2 cgroup2 rw\n")
        .write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "25000\n")
        .write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n")
        .write("sys/fs/cgroup/cpu/cpu.shares", "1024\n")
        .write("sys/fs/cgroup/cpu/cpu.stat",
               "nr_periods 10\nnr_throttled 9\nthrottled_time 1500000000\n")
        .write("sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n")
        .write("sys/fs/cgroup/unified/cgroup.controllers", "\n");
    const CgroupFacts facts = facts_of(tree);
    CHECK(facts.version == 1);
    CHECK(facts.cpu_cgroup_path == path);
    CHECK(facts.cpu_dir == "/sys/fs/cgroup/cpu");
    REQUIRE(facts.cpu_quota.has_value());
    CHECK(facts.cpu_quota->cores() == doctest::Approx(0.25));
    CHECK(facts.cpu_period_us == 100000);
    CHECK(facts.cpu_shares == 1024u);
    CHECK(facts.memory_limit_bytes == 536870912u);
    REQUIRE(facts.throttling.has_value());
    CHECK(facts.throttling->throttled_periods == 9);
    CHECK(facts.throttling->throttled_seconds == doctest::Approx(1.5));
    CHECK(facts.warnings.empty());
}

TEST_CASE("EKS capture: an unlimited container takes the nearest ancestor's quota") {
    TempTree tree;
    const std::string container = path_of(
        testing::cgroup_fixture("extracted/v1_eks_amzn2/proc_493239_cgroup"), "cpu,cpuacct");
    const std::string pod = container.substr(0, container.rfind('/'));
    const std::string base = "sys/fs/cgroup/cpu,cpuacct";
    // elastic rewrote the mount points to "testdata/amzn2/..."; undo that rewrite.
    tree.write("proc/self/cgroup",
               testing::cgroup_fixture("extracted/v1_eks_amzn2/proc_493239_cgroup"))
        .write("proc/self/mountinfo",
               replace_all(testing::cgroup_fixture("extracted/v1_eks_amzn2/proc_self_mountinfo"),
                           "testdata/amzn2/", "/"))
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_eks_amzn2/cpu.cfs_quota_us",
              base + container + "/cpu.cfs_quota_us")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_eks_amzn2/cpu.cfs_period_us",
              base + container + "/cpu.cfs_period_us")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_eks_amzn2/cpu.shares",
              base + container + "/cpu.shares")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_eks_amzn2/cpu.stat",
              base + container + "/cpu.stat")
        .write(base + pod + "/cpu.cfs_quota_us", "50000\n")
        .write(base + pod + "/cpu.cfs_period_us", "100000\n")
        .write(base + pod + "/cpu.stat",
               "nr_periods 100\nnr_throttled 40\nthrottled_time 2000000000\n");
    const CgroupFacts facts = facts_of(tree);
    CHECK(facts.version == 1);
    CHECK(container.find("cri-containerd-") != std::string::npos);
    CHECK(facts.cpu_dir == "/" + base + container);
    REQUIRE(facts.cpu_quota.has_value());
    CHECK(facts.cpu_quota->cores() == doctest::Approx(0.5));
    CHECK(facts.cpu_quota->cgroup_dir == "/" + base + pod);
    CHECK(facts.cpu_shares == 102u);
    // Throttling is counted where the quota is enforced.
    REQUIRE(facts.throttling.has_value());
    CHECK(facts.throttling->throttled_periods == 40);
}

TEST_CASE("the most restrictive quota on the way up wins") {
    TempTree tree;
    tree.write("proc/self/cgroup", "0::/task/app\n")
        .write("proc/self/mountinfo", "1 0 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
        .write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n")
        .write("sys/fs/cgroup/task/cpu.max", "50000 100000\n")
        .write("sys/fs/cgroup/task/app/cpu.max", "200000 100000\n")
        .write("sys/fs/cgroup/task/app/memory.max", "max\n")
        .write("sys/fs/cgroup/task/memory.max", "1073741824\n");
    const CgroupFacts facts = facts_of(tree);
    CHECK(facts.version == 2);
    REQUIRE(facts.cpu_quota.has_value());
    CHECK(facts.cpu_quota->cores() == doctest::Approx(0.5));
    CHECK(facts.memory_limit_bytes == 1073741824u);
    CHECK(facts.warnings.empty());  // the v2 root has no cpu.max, and that is normal
}

TEST_CASE("cgroup v2 capture: unlimited, weight and counters") {
    TempTree tree;
    const std::string path =
        path_of(testing::cgroup_fixture("extracted/v2_docker/proc_312_cgroup"), "");
    tree.write("proc/self/cgroup", testing::cgroup_fixture("extracted/v2_docker/proc_312_cgroup"))
        .write("proc/self/mountinfo",
               "1 0 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v2_docker/cpu.max",
              "sys/fs/cgroup" + path + "/cpu.max")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v2_docker/cpu.weight",
              "sys/fs/cgroup" + path + "/cpu.weight")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v2_docker/cpu.stat",
              "sys/fs/cgroup" + path + "/cpu.stat");
    const CgroupFacts facts = facts_of(tree);
    CHECK(facts.version == 2);
    CHECK_FALSE(facts.cpu_quota.has_value());
    CHECK(facts.cpu_period_us == 100000);
    CHECK(facts.cpu_weight == 100u);
    REQUIRE(facts.throttling.has_value());
    CHECK(facts.throttling->throttled_periods == 4);
}

TEST_CASE("docker capture: a cgroup path outside the mounted root falls back to the mount point") {
    TempTree tree;
    tree.write("proc/self/cgroup", testing::cgroup_fixture("extracted/v1_docker/proc_985_cgroup"))
        .write("proc/self/mountinfo",
               replace_all(testing::cgroup_fixture("extracted/v1_docker/proc_self_mountinfo"),
                           "testdata/docker/", "/"))
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_docker/cpu.cfs_quota_us",
              "sys/fs/cgroup/cpu/cpu.cfs_quota_us")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_docker/cpu.cfs_period_us",
              "sys/fs/cgroup/cpu/cpu.cfs_period_us")
        .copy(testing::fixtures_dir() + "/cgroup/extracted/v1_docker/cpu.stat",
              "sys/fs/cgroup/cpu/cpu.stat");
    const CgroupFacts facts = facts_of(tree);
    CHECK(facts.version == 1);
    CHECK(facts.cpu_dir == "/sys/fs/cgroup/cpu");
    CHECK(has_warning_containing(facts, "outside the mounted root"));
    CHECK_FALSE(facts.cpu_quota.has_value());
    REQUIRE(facts.throttling.has_value());
    CHECK(facts.throttling->periods == 769021);
}

TEST_CASE("hybrid hosts: the v1 cpu controller wins over a controller-less cgroup2") {
    TempTree tree;
    tree.write("proc/self/cgroup", "2:cpu,cpuacct:/\n0::/\n")
        .write("proc/self/mountinfo",
               testing::cgroup_fixture("automaxprocs/proc/v2/mountinfo-v1-v2") +
                   "50 33 0:40 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n")
        .write("sys/fs/cgroup/unified/cgroup.controllers", "\n")
        .write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "150000\n")
        .write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    const CgroupFacts facts = facts_of(tree);
    CHECK(facts.version == 1);
    REQUIRE(facts.cpu_quota.has_value());
    CHECK(facts.cpu_quota->cores() == doctest::Approx(1.5));
}

TEST_CASE("malformed and missing files become warnings, never failures") {
    SUBCASE("no /proc/self/cgroup") {
        TempTree tree;
        tree.mkdir("proc");
        const CgroupFacts facts = facts_of(tree);
        CHECK_FALSE(facts.version.has_value());
        CHECK(has_warning_containing(facts, "/proc/self/cgroup"));
    }
    SUBCASE("garbage quota and stat") {
        TempTree tree;
        tree.write("proc/self/cgroup", "1:cpu:/\n")
            .write("proc/self/mountinfo",
                   "1 0 0:1 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n")
            .write("sys/fs/cgroup/cpu/cpu.cfs_quota_us",
                   testing::cgroup_fixture("automaxprocs/cgroups/invalid/cpu.cfs_quota_us"))
            .write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n")
            .write("sys/fs/cgroup/cpu/cpu.shares", "many\n")
            .write("sys/fs/cgroup/cpu/cpu.stat",
                   "nr_periods ?\nnr_throttled 1\nthrottled_time 1\n");
        const CgroupFacts facts = facts_of(tree);
        CHECK(facts.version == 1);
        CHECK_FALSE(facts.cpu_quota.has_value());
        CHECK_FALSE(facts.throttling.has_value());
        CHECK(has_warning_containing(facts, "non-an-integer"));
        CHECK(has_warning_containing(facts, "cpu.shares"));
        CHECK(has_warning_containing(facts, "nr_periods"));
    }
    SUBCASE("a v2 hierarchy without the cpu controller") {
        TempTree tree;
        tree.write("proc/self/cgroup", testing::cgroup_fixture("automaxprocs/proc/v2/cgroup-root"))
            .write("proc/self/mountinfo",
                   testing::cgroup_fixture("automaxprocs/proc/v2/mountinfo-v2"))
            .write("sys/fs/cgroup/cgroup.controllers", "memory pids\n")
            .write("sys/fs/cgroup/memory.max", "max\n");
        const CgroupFacts facts = facts_of(tree);
        CHECK(facts.version == 2);  // from the memory controller
        CHECK_FALSE(facts.cpu_quota.has_value());
        CHECK_FALSE(facts.memory_limit_bytes.has_value());
    }
    SUBCASE("the translated directory does not exist") {
        TempTree tree;
        tree.write("proc/self/cgroup", "1:cpu:/gone\n")
            .write("proc/self/mountinfo",
                   "1 0 0:1 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n")
            .write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n")
            .write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
        const CgroupFacts facts = facts_of(tree);
        CHECK(facts.cpu_dir == "/sys/fs/cgroup/cpu");
        CHECK(has_warning_containing(facts, "does not exist"));
    }
}
