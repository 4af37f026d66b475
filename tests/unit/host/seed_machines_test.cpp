// The seeds' machines, replayed from tests/fixtures/sysroots (see its README.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "host/cpuinfo.hpp"
#include "host/host_facts.hpp"
#include "support/paths.hpp"
#include "support/replay.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

bool has(const std::vector<std::string>& values, const std::string& value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

const CacheSummary* cache_named(const HostFacts& facts, const std::string& name) {
    for (const auto& cache : facts.caches)
        if (cache.name == name) return &cache;
    return nullptr;
}

}  // namespace

TEST_CASE("Fargate 0.25 vCPU tasks on Xen see 2 CPUs but get one worker") {
    struct Case {
        const char* sysroot;
        const char* model_name;
        const char* microarchitecture;
        const char* candidate;
    };
    for (const Case& c :
         {Case{"fargate-e5-2670v2", "Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz", "Ivy Bridge",
               "m3"},
          Case{"fargate-e5-2676v3", "Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz", "Haswell", "m4"},
          Case{"fargate-e5-2686v4", "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz", "Broadwell",
               "m4"}}) {
        INFO(c.sysroot);
        const HostFacts facts = testing::replay_sysroot(c.sysroot);
        REQUIRE(facts.default_type() != nullptr);
        CHECK(facts.default_type()->model_name == c.model_name);
        CHECK(facts.online_cpus() == 2);
        CHECK(facts.hypervisor.vendor == "Xen");
        CHECK(facts.hypervisor.virtualization_type == "full");
        CHECK(facts.hypervisor.platform == "AWS Xen");
        CHECK(facts.cgroup.version == 1);
        REQUIRE(facts.cgroup.cpu_quota.has_value());
        CHECK(facts.cgroup.cpu_quota->cores() == doctest::Approx(0.25));
        CHECK(facts.cgroup.memory_limit_bytes == 512u * 1024 * 1024);
        CHECK(facts.cpu_budget.cores == doctest::Approx(0.25));
        CHECK(facts.cpu_budget.workers == 1);
        CHECK(facts.cpu_budget.visible_cpus == 2);
        CHECK(facts.guess.microarchitecture == c.microarchitecture);
        CHECK(has(facts.guess.ec2_families, c.candidate));
        CHECK(has(facts.guess.ec2_families, "t2"));
        CHECK_FALSE(facts.guess.notes.empty());
        CHECK(facts.warnings.empty());
    }
}

TEST_CASE("Graviton2 with 8 CPUs under cgroup v2") {
    const HostFacts facts = testing::replay_sysroot("graviton2-8cpu");
    REQUIRE(facts.default_type() != nullptr);
    CHECK(facts.architecture == "aarch64");
    CHECK(facts.default_type()->vendor_id == "ARM");
    CHECK(facts.default_type()->model_name == "Neoverse-N1");
    CHECK(facts.default_type()->stepping == "r3p1");
    CHECK(facts.online_cpus() == 8);
    CHECK(facts.cgroup.version == 2);
    CHECK(facts.cpu_budget.cores == doctest::Approx(2.0));
    CHECK(facts.cpu_budget.workers == 2);
    CHECK(facts.guess.microarchitecture == "Neoverse-N1");
    CHECK(facts.guess.graviton == "Graviton2");
    CHECK(has(facts.guess.ec2_families, "t4g"));
    CHECK(has(facts.guess.ec2_families, "m6g"));
    CHECK(facts.warnings.empty());
}

TEST_CASE("Graviton3 (c7g.2xlarge) under a 4-CPU cgroup v2 quota") {
    const HostFacts facts = testing::replay_sysroot("graviton3-8cpu");
    REQUIRE(facts.default_type() != nullptr);
    const CpuType& cpu = *facts.default_type();
    CHECK(facts.architecture == "aarch64");
    CHECK(cpu.vendor_id == "ARM");
    CHECK(cpu.model_name == "Neoverse-V1");
    CHECK(cpu.stepping == "r1p1");
    REQUIRE(cpu.arm.has_value());
    CHECK(cpu.arm->part == 0xd40u);
    CHECK(cpu.bogomips == "2100.00");
    for (const char* flag : {"sve", "sha512", "sha3", "i8mm", "bf16", "svei8mm", "svebf16", "rng"})
        CHECK_MESSAGE(has(cpu.flags, flag), flag);
    CHECK_FALSE(has(cpu.flags, "sve2"));  // SVE2 came with Neoverse-V2
    CHECK(facts.online_cpus() == 8);
    REQUIRE(cache_named(facts, "L2") != nullptr);
    CHECK(cache_named(facts, "L2")->size_bytes == 1024u * 1024);
    REQUIRE(cache_named(facts, "L3") != nullptr);
    CHECK(cache_named(facts, "L3")->size_bytes == 32u * 1024 * 1024);
    CHECK(cache_named(facts, "L3")->instances == 1);
    CHECK(facts.cgroup.version == 2);
    REQUIRE(facts.cgroup.cpu_quota.has_value());
    CHECK(facts.cgroup.cpu_quota->cores() == doctest::Approx(4.0));
    CHECK(facts.cgroup.cpu_weight == 157u);
    CHECK(facts.cgroup.memory_limit_bytes == 8ull * 1024 * 1024 * 1024);
    CHECK(facts.cpu_budget.cores == doctest::Approx(4.0));
    CHECK(facts.cpu_budget.workers == 4);
    CHECK(facts.cpu_budget.visible_cpus == 8);
    CHECK(facts.guess.microarchitecture == "Neoverse-V1");
    CHECK(facts.guess.graviton == "Graviton3");
    CHECK(facts.guess.codename == "AWS Graviton3");
    CHECK(facts.guess.ec2_families ==
          std::vector<std::string>{"c7g", "c7gd", "c7gn", "hpc7g", "m7g", "m7gd", "r7g", "r7gd"});
    CHECK(facts.warnings.empty());
}

TEST_CASE("Graviton4 (c8g.xlarge) in an ECS task whose 1.5-CPU quota sits on the task slice") {
    const HostFacts facts = testing::replay_sysroot("graviton4-4cpu");
    REQUIRE(facts.default_type() != nullptr);
    const CpuType& cpu = *facts.default_type();
    CHECK(facts.architecture == "aarch64");
    CHECK(cpu.vendor_id == "ARM");
    CHECK(cpu.model_name == "Neoverse-V2");
    CHECK(cpu.stepping == "r0p1");
    REQUIRE(cpu.arm.has_value());
    CHECK(cpu.arm->part == 0xd4fu);
    CHECK(cpu.bogomips == "2000.00");
    for (const char* flag :
         {"sve", "sve2", "sveaes", "svebitperm", "sha512", "i8mm", "bf16", "bti", "sb", "frint"})
        CHECK_MESSAGE(has(cpu.flags, flag), flag);
    CHECK_FALSE(has(cpu.flags, "sm4"));  // Graviton4 reports no SM3/SM4
    CHECK(facts.online_cpus() == 4);
    REQUIRE(cache_named(facts, "L2") != nullptr);
    CHECK(cache_named(facts, "L2")->size_bytes == 2u * 1024 * 1024);
    CHECK(cache_named(facts, "L2")->instances == 4);
    REQUIRE(cache_named(facts, "L3") != nullptr);
    CHECK(cache_named(facts, "L3")->size_bytes == 36u * 1024 * 1024);
    CHECK(facts.cgroup.version == 2);
    CHECK(facts.cgroup.cpu_cgroup_path.rfind("/ecstasks.slice/ecstasks-", 0) == 0);
    REQUIRE(facts.cgroup.cpu_quota.has_value());
    CHECK(facts.cgroup.cpu_quota->cores() == doctest::Approx(1.5));
    // The container's own cpu.max is "max": the limit is its task slice's, one level up.
    CHECK(facts.cgroup.cpu_quota->cgroup_dir ==
          std::filesystem::path(facts.cgroup.cpu_dir).parent_path().string());
    CHECK(facts.cgroup.memory_limit_bytes == 3ull * 1024 * 1024 * 1024);
    REQUIRE(facts.cgroup.throttling.has_value());
    CHECK(facts.cgroup.throttling->periods == 3000);
    CHECK(facts.cgroup.throttling->throttled_periods == 900);
    CHECK(facts.cpu_budget.cores == doctest::Approx(1.5));
    CHECK(facts.cpu_budget.workers == 2);
    CHECK(facts.cpu_budget.visible_cpus == 4);
    CHECK(facts.guess.microarchitecture == "Neoverse-V2");
    CHECK(facts.guess.graviton == "Graviton4");
    CHECK(facts.guess.codename == "AWS Graviton4");
    CHECK(facts.guess.ec2_families == std::vector<std::string>{"c8g", "i8g", "m8g", "r8g", "x8g"});
    CHECK(facts.warnings.empty());
}

TEST_CASE("DMI's instance type beats the CPU-based guess") {
    testing::TempTree tree;
    std::filesystem::copy(testing::fixtures_dir() + "/sysroots/graviton2-8cpu", tree.root(),
                          std::filesystem::copy_options::recursive);
    tree.write("sys/class/dmi/id/sys_vendor", "Amazon EC2\n")
        .write("sys/class/dmi/id/product_name", "t4g.2xlarge\n");
    const HostFacts facts = collect_host_facts(SysRoot(tree.root()), NoCpuid(), std::nullopt);
    CHECK(facts.hypervisor.platform == "AWS Nitro");
    CHECK(facts.guess.ec2_families == std::vector<std::string>{"t4g"});
}

TEST_CASE("the CPU budget") {
    const auto unlimited = compute_cpu_budget(std::nullopt, 4);
    CHECK(unlimited.cores == 4);
    CHECK(unlimited.workers == 4);
    CHECK(unlimited.source == "cpus");
    const auto quarter = compute_cpu_budget(CpuQuota{25000, 100000, "/x"}, 2);
    CHECK(quarter.workers == 1);
    CHECK(quarter.source == "cgroup");
    CHECK(compute_cpu_budget(CpuQuota{150000, 100000, "/x"}, 8).workers == 2);
    CHECK(compute_cpu_budget(CpuQuota{800000, 100000, "/x"}, 2).workers ==
          2);  // never above visible
    CHECK(compute_cpu_budget(CpuQuota{200000, 100000, "/x"}, 8).workers == 2);
    CHECK(compute_cpu_budget(std::nullopt, 0).workers == 1);
}

TEST_CASE("the live machine") {
    const HostFacts facts = collect_host_facts(SysRoot("/"), LiveCpuid(), read_live_inputs());
    CHECK_FALSE(facts.architecture.empty());
    CHECK(facts.online_cpus() >= 1);
    CHECK(facts.cpu_budget.workers >= 1);
    CHECK(facts.cpu_budget.visible_cpus == *affinity_cpu_count());
}

TEST_CASE("the live machine as this build sees it: its own architecture, CPUID only on x86") {
    const HostFacts facts = collect_host_facts(SysRoot("/"), LiveCpuid(), read_live_inputs());
#if defined(__aarch64__)
    // Also under qemu-user, whose /proc/cpuinfo is the x86 host's: uname says what runs, and a
    // warning says the CPU described is the emulating host's.
    CHECK(facts.architecture == "aarch64");
    if (infer_architecture(parse_cpuinfo(*SysRoot("/").read_file("/proc/cpuinfo"), std::nullopt)) ==
        "x86_64")
        CHECK(std::any_of(facts.warnings.begin(), facts.warnings.end(), [](const auto& warning) {
            return warning.find("emulated") != std::string::npos;
        }));
    CHECK_FALSE(LiveCpuid().hypervisor_signature());
#elif defined(__x86_64__)
    CHECK(facts.architecture == "x86_64");
#endif
    CHECK(facts.cpu_budget.cores > 0);
    CHECK(facts.cpu_budget.workers <= facts.cpu_budget.visible_cpus);
}

TEST_CASE("an arm64 process shown an x86 host's cpuinfo (qemu-user) is warned about") {
    const SysRoot fargate(testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4");
    const auto has_emulation_warning = [](const HostFacts& facts) {
        return std::any_of(facts.warnings.begin(), facts.warnings.end(), [](const auto& warning) {
            return warning.find("emulated") != std::string::npos;
        });
    };
    const HostFacts emulated = collect_host_facts(fargate, NoCpuid(), LiveInputs{"aarch64", 2});
    CHECK(emulated.architecture == "aarch64");
    CHECK(has_emulation_warning(emulated));
    CHECK_FALSE(
        has_emulation_warning(collect_host_facts(fargate, NoCpuid(), LiveInputs{"x86_64", 2})));
    CHECK_FALSE(
        has_emulation_warning(collect_host_facts(fargate, NoCpuid(), LiveInputs{"i686", 2})));
    CHECK_FALSE(has_emulation_warning(collect_host_facts(fargate, NoCpuid(), std::nullopt)));
    CHECK(emulation_warning("aarch64", "x86_64")->find("qemu-user") != std::string::npos);
    CHECK_FALSE(emulation_warning("x86_64", "unknown"));
    CHECK_FALSE(emulation_warning("armv7l", "aarch64"));
}
