#include "host/host_examples.hpp"

#include <stdexcept>
#include <utility>

namespace hostprobe::host {

namespace {

CpuSet example_cpu_set() {
    CpuSet cpus;
    cpus.insert(0);
    cpus.insert(1);
    return cpus;
}

CpuType example_cpu_type(ExampleArchitecture architecture) {
    const bool arm = architecture == ExampleArchitecture::arm;
    CpuType type;
    type.vendor_id = arm ? "ARM" : "AuthenticAMD";
    type.model_name = arm ? "Neoverse-N1" : "AMD EPYC 7R13 Processor";
    // x86 writes these as numbers; other architectures may write text.
    type.family = arm ? "ARMv8" : "25";
    type.model = arm ? "0xd0c" : "1";
    type.stepping = arm ? "r3p1" : "1";
    type.flags = {"fp", "aes"};
    type.flags_line = "fp aes";
    type.bogomips = "243.75";
    type.mhz = "2650.000";
    type.microcode = "0xa0011d1";
    type.address_sizes = "48 bits physical, 48 bits virtual";
    type.max_thread_id = "1";
    if (arm) type.arm = ArmIdentity{0x41, 0xd0c, 3, 1, "AWS Graviton2"};
    type.cpus = {0, 1};
    type.topology = TypeTopology{2, 1, 1, 1, 0, 0};
    return type;
}

// One of each status, and a mitigation that costs every system call.
std::vector<CpuVulnerability> example_cpu_vulnerabilities() {
    std::vector<CpuVulnerability> vulnerabilities;
    for (const auto& [name, line] :
         {std::pair{"meltdown", "Mitigation: PTI"}, std::pair{"l1tf", "Not affected"},
          std::pair{"retbleed", "Vulnerable"},
          std::pair{"mmio_stale_data", "Unknown: No mitigations"}}) {
        if (auto vulnerability = parse_cpu_vulnerability(name, line))
            vulnerabilities.push_back(std::move(*vulnerability));
    }
    sort_cpu_vulnerabilities(vulnerabilities);
    return vulnerabilities;
}

CgroupFacts example_cgroup() {
    CgroupFacts cgroup;
    cgroup.version = 2;
    cgroup.cpu_cgroup_path = "/ecs/task";
    cgroup.cpu_dir = "/sys/fs/cgroup/ecs/task";
    cgroup.cpu_quota = CpuQuota{200000, 100000, "/sys/fs/cgroup/ecs"};
    cgroup.cpu_period_us = 100000;
    cgroup.cpu_shares = 1024;
    cgroup.cpu_weight = 100;
    cgroup.cpuset = example_cpu_set();
    cgroup.memory_limit_bytes = uint64_t{1} << 30;
    cgroup.throttling = example_throttling();
    cgroup.warnings = {"a warning"};
    return cgroup;
}

}  // namespace

CpuBudget example_cpu_budget() {
    return CpuBudget{2, 2, 2, "cgroup"};
}

ThrottlingCounters example_throttling() {
    return ThrottlingCounters{100, 10, 0.5};
}

OpensslCpu example_openssl_cpu(ExampleArchitecture architecture) {
    // What OpenSSL 3.0 reports on an AMD EPYC (AES-NI masked by the variable) and a Graviton2.
    auto cpu = parse_openssl_cpu_settings(
        architecture == ExampleArchitecture::arm
            ? "OPENSSL_armcap=0xbd"
            : "OPENSSL_ia32cap=0xfcd83203178bffff:0x0 env:~0x200000000000000");
    // (ARM's without the variable set: no environment.)
    if (!cpu) throw std::logic_error("the example OpenSSL settings do not parse");
    return *cpu;
}

HostFacts example_host_facts(ExampleArchitecture architecture) {
    HostFacts facts;
    facts.sysroot = "/";
    facts.architecture = architecture == ExampleArchitecture::arm ? "aarch64" : "x86_64";
    facts.op_modes = "32-bit, 64-bit";
    facts.byte_order = "Little Endian";
    facts.cpu_lists = CpuLists{example_cpu_set(), example_cpu_set(), example_cpu_set(), {}};
    facts.cpu_types = {example_cpu_type(architecture)};
    facts.caches = {CacheSummary{"L1d", 1, "Data", 32768, 65536, 2}};
    facts.numa_nodes = {NumaNode{0, example_cpu_set()}};
    facts.cpu_vulnerabilities = example_cpu_vulnerabilities();
    facts.hypervisor = HypervisorFacts{"KVM",        "full",      "AWS Nitro", "AMD-V",
                                       "Amazon EC2", "m6a.large", "m6a.large", {"evidence"}};
    facts.cgroup = example_cgroup();
    facts.cpu_budget = example_cpu_budget();
    facts.guess = HostGuess{"Zen 3", "Milan", "Graviton2", {"m6a"}, {"a note"}};
    facts.openssl_cpu = example_openssl_cpu(architecture);
    facts.warnings = {"a warning"};
    return facts;
}

HostFacts example_sparse_host_facts() {
    HostFacts facts = example_host_facts(ExampleArchitecture::arm);
    facts.op_modes.reset();
    facts.byte_order.reset();
    const CpuType& full = facts.cpu_types[0];
    facts.cpu_types[0] = CpuType{.flags = full.flags,
                                 .arm = ArmIdentity{.implementer = 0x41},
                                 .cpus = full.cpus,
                                 .topology = full.topology};
    facts.hypervisor = HypervisorFacts{.evidence = {"evidence"}};
    facts.cgroup = CgroupFacts{.warnings = {"a warning"}};
    facts.guess = HostGuess{.ec2_families = {"m6a"}, .notes = {"a note"}};
    return facts;
}

LiveReading example_live_reading(ExampleFill fill) {
    const bool full = fill == ExampleFill::full;
    const PressureTotals pressure_totals =
        full ? PressureTotals{1.5, 0.5} : PressureTotals{1.5, std::nullopt};
    LiveReading reading;
    reading.cgroup_cpu =
        full ? CgroupCpuUsage{10.5, 8.5, 2.0} : CgroupCpuUsage{10.5, std::nullopt, std::nullopt};
    reading.budget_cores = 2;
    reading.steal_seconds = 0.25;
    reading.steal_cpus = 2;
    reading.throttling = example_throttling();
    // Sparse: the host's CPU pressure only, none of the cgroup's.
    for (auto& pressure : reading.host_pressure)
        pressure = pressure_totals;
    if (!full) reading.host_pressure[1] = reading.host_pressure[2] = std::nullopt;
    if (full) reading.cgroup_pressure = reading.host_pressure;
    reading.memory_usage_bytes = uint64_t{1} << 20;
    if (full) reading.memory_events = MemoryEvents{{"oom", 0}, {"max", 2}};
    return reading;
}

LiveRates example_live_rates(ExampleFill fill) {
    const bool full = fill == ExampleFill::full;
    const PressureRates pressure_rates =
        full ? PressureRates{0.5, 0.25} : PressureRates{0.5, std::nullopt};
    LiveRates rates;
    rates.interval_seconds = 1.5;
    rates.cpu_cores_used = 0.5;
    rates.budget_used_ratio = 0.25;
    rates.steal_cores = 0.5;
    rates.steal_ratio_per_cpu = 0.25;
    rates.throttled_periods_ratio = 0.5;
    rates.throttled_cores = 0.5;
    for (auto& pressure : rates.host_pressure)
        pressure = pressure_rates;
    if (!full) rates.host_pressure[1] = rates.host_pressure[2] = std::nullopt;
    if (full) rates.cgroup_pressure = rates.host_pressure;
    if (!full) rates.cpu_cores_used.reset();  // and those computed from it
    if (!full) rates.budget_used_ratio.reset();
    return rates;
}

}  // namespace hostprobe::host
