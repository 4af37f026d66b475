// The JSON contract of GET /v1/host and `hostprobe cpu --json`: names other tools rely on.
#include "report/host_json.hpp"

#include <doctest/doctest.h>

#include "core/strings.hpp"
#include "report/host_text.hpp"
#include "support/paths.hpp"
#include "support/replay.hpp"

using namespace hostprobe;
using nlohmann::json;

namespace {

const json& at_path(const json& document, const std::string& dotted) {
    const json* node = &document;
    for (std::string_view key : split(dotted, '.')) {
        REQUIRE_MESSAGE(node->is_object(), dotted);
        REQUIRE_MESSAGE(node->contains(std::string(key)), "missing " << dotted);
        node = &(*node)[std::string(key)];
    }
    return *node;
}

const std::vector<std::string> kContract = {"schema_version",
                                            "cpu.architecture",
                                            "cpu.vendor_id",
                                            "cpu.model_name",
                                            "cpu.family",
                                            "cpu.model",
                                            "cpu.stepping",
                                            "cpu.flags",
                                            "cpu.mhz",
                                            "cpu.bogomips",
                                            "topology.online_cpus",
                                            "topology.online_list",
                                            "topology.threads_per_core",
                                            "topology.cores_per_socket",
                                            "topology.sockets",
                                            "topology.numa_nodes",
                                            "caches",
                                            "cpu_vulnerabilities",
                                            "cpu_mitigations_costing_syscalls",
                                            "hypervisor.vendor",
                                            "hypervisor.virtualization_type",
                                            "cgroup.version",
                                            "cgroup.cpu_quota_cores",
                                            "cgroup.cpu_period_us",
                                            "cgroup.memory_limit_bytes",
                                            "cgroup.throttling.periods",
                                            "cgroup.throttling.throttled_periods",
                                            "cgroup.throttling.throttled_seconds",
                                            "cpu_budget.cores",
                                            "cpu_budget.workers",
                                            "cpu_budget.visible_cpus",
                                            "guess.microarchitecture",
                                            "guess.ec2_families",
                                            "guess.notes",
                                            "warnings"};

}  // namespace

TEST_CASE("every contract field is there, with the contract's types (x86 under a quota)") {
    const json document = report::host_json(testing::replay_sysroot("fargate-e5-2686v4"));
    for (const auto& path : kContract) {
        INFO(path);
        CHECK_NOTHROW(at_path(document, path));
    }
    CHECK(at_path(document, "schema_version") == 1);
    CHECK(at_path(document, "cpu.architecture") == "x86_64");
    CHECK(at_path(document, "cpu.vendor_id") == "GenuineIntel");
    CHECK(at_path(document, "cpu.family") == 6);
    CHECK(at_path(document, "cpu.model") == 79);
    CHECK(at_path(document, "cpu.stepping") == 1);
    CHECK(at_path(document, "cpu.flags").is_array());
    CHECK(at_path(document, "cpu.mhz").get<double>() == doctest::Approx(2300.202));
    CHECK(at_path(document, "topology.online_cpus") == 2);
    CHECK(at_path(document, "topology.online_list") == "0,1");
    CHECK(at_path(document, "topology.threads_per_core") == 2);
    CHECK(at_path(document, "topology.numa_nodes") == 1);
    const json& l3 = at_path(document, "caches").back();
    CHECK(l3["level"] == 3);
    CHECK(l3["type"] == "Unified");
    CHECK(l3["size_bytes"] == 46080 * 1024);
    CHECK(l3["instances"] == 1);
    CHECK(at_path(document, "hypervisor.vendor") == "Xen");
    CHECK(at_path(document, "cgroup.version") == 1);
    CHECK(at_path(document, "cgroup.cpu_quota_cores") == 0.25);
    CHECK(at_path(document, "cgroup.cpu_period_us") == 100000);
    CHECK(at_path(document, "cgroup.memory_limit_bytes") == 536870912);
    CHECK(at_path(document, "cpu_budget.workers") == 1);
    CHECK(at_path(document, "guess.microarchitecture") == "Broadwell");
    CHECK(at_path(document, "warnings").empty());
}

TEST_CASE("arm64: vendor_id is the implementer, model_name the part; unlimited means null") {
    const json document = report::host_json(testing::replay_sysroot("graviton2-8cpu"));
    CHECK(at_path(document, "cpu.vendor_id") == "ARM");
    CHECK(at_path(document, "cpu.model_name") == "Neoverse-N1");
    CHECK(at_path(document, "cpu.stepping") == "r3p1");
    CHECK(at_path(document, "cpu.arm.part") == "0xd0c");
    CHECK(at_path(document, "cpu.family").is_null());
    CHECK(at_path(document, "hypervisor.vendor").is_null());
    CHECK(at_path(document, "guess.graviton") == "Graviton2");

    host::HostFacts unlimited = testing::replay_sysroot("graviton2-8cpu");
    unlimited.cgroup.cpu_quota.reset();
    unlimited.cgroup.memory_limit_bytes.reset();
    const json open = report::host_json(unlimited);
    CHECK(at_path(open, "cgroup.cpu_quota_cores").is_null());
    CHECK(at_path(open, "cgroup.memory_limit_bytes").is_null());
}

TEST_CASE("fresh throttling counters replace the ones read at start-up") {
    const json document = report::host_json(testing::replay_sysroot("graviton2-8cpu"),
                                            host::ThrottlingCounters{7, 3, 0.5});
    CHECK(at_path(document, "cgroup.throttling.periods") == 7);
    CHECK(report::host_text(testing::replay_sysroot("graviton2-8cpu"),
                            host::ThrottlingCounters{7, 3, 0.5})
              .find("3 of 7 periods") != std::string::npos);
}

TEST_CASE("the text report keeps lscpu's order, then hostprobe's lines") {
    const std::string text = report::host_text(testing::replay_sysroot("fargate-e5-2670v2"));
    const std::vector<std::string> order = {"Architecture:",
                                            "CPU(s):",
                                            "On-line CPU(s) list:",
                                            "Vendor ID:",
                                            "Model name:",
                                            "CPU family:",
                                            "Model:",
                                            "Thread(s) per core:",
                                            "Core(s) per socket:",
                                            "Socket(s):",
                                            "Stepping:",
                                            "BogoMIPS:",
                                            "Flags:",
                                            "Hypervisor vendor:",
                                            "Virtualization type:",
                                            "L1d cache:",
                                            "L1i cache:",
                                            "L2 cache:",
                                            "L3 cache:",
                                            "NUMA node(s):",
                                            "CPU quota:",
                                            "Memory limit:",
                                            "CPU budget:",
                                            "CPU throttling:",
                                            "Microarchitecture:",
                                            "EC2 candidates:"};
    size_t position = 0;
    for (const auto& key : order) {
        INFO(key);
        const size_t found = text.find("\n" + key);
        CHECK((found != std::string::npos || text.rfind(key, 0) == 0));
        if (found != std::string::npos) {
            CHECK(found >= position);
            position = found;
        }
    }
    CHECK(text.find("0.25 CPUs (25000/100000 us)") != std::string::npos);
    CHECK(text.find("Ivy Bridge") != std::string::npos);
}

TEST_CASE("the CPU's vulnerabilities as lscpu words them, and those that cost every syscall") {
    // util-linux's dump of a 2-socket EPYC 7451 (tests/fixtures/lscpu), on Linux 4.x.
    const json document = report::host_json(host::collect_host_facts(
        SysRoot(std::string(HOSTPROBE_LSCPU_DUMPS_DIR) + "/x86_64-epyc_7451"), host::NoCpuid(),
        std::nullopt));
    const json& vulnerabilities = at_path(document, "cpu_vulnerabilities");
    REQUIRE(vulnerabilities.size() == 5);
    CHECK(vulnerabilities[0] == json{{"name", "l1tf"},
                                     {"title", "L1tf"},
                                     {"status", "not_affected"},
                                     {"text", "Not affected"}});
    CHECK(vulnerabilities[4] ==
          json{{"name", "spectre_v2"},
               {"title", "Spectre v2"},
               {"status", "mitigation"},
               {"text",
                "Mitigation; Full AMD retpoline, IBPB conditional, STIBP disabled, RSB "
                "filling"}});
    const json& costing = at_path(document, "cpu_mitigations_costing_syscalls");
    REQUIRE(costing.size() == 1);
    CHECK(costing[0]["name"] == "spectre_v2");
    CHECK(costing[0]["mitigation"] == "Full AMD retpoline");
    CHECK_FALSE(costing[0]["cost"].get<std::string>().empty());
    // A seed machine without the folder has neither.
    const json seed = report::host_json(testing::replay_sysroot("graviton2-8cpu"));
    CHECK(at_path(seed, "cpu_vulnerabilities") == json::array());
    CHECK(at_path(seed, "cpu_mitigations_costing_syscalls") == json::array());
}
