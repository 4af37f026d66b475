// Everything hostprobe knows about the machine and the limits it runs under, collected through
// one SysRoot: `hostprobe cpu`, and with the ECS task (src/task) GET /v1/host and the host
// metrics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sysroot.hpp"
#include "host/caches.hpp"
#include "host/cgroup.hpp"
#include "host/cpu_budget.hpp"
#include "host/cpu_types.hpp"
#include "host/cpu_vulnerabilities.hpp"
#include "host/cpuid.hpp"
#include "host/guess.hpp"
#include "host/hypervisor.hpp"
#include "host/openssl_cpu.hpp"
#include "host/topology.hpp"

namespace hostprobe::host {

// What only the live machine can tell (a dump cannot).
struct LiveInputs {
    std::string machine;  // uname -m
    std::optional<uint32_t> affinity_cpus;
    // This process's OPENSSL_info(OPENSSL_INFO_CPU_SETTINGS): what its OpenSSL runs with.
    std::optional<std::string> openssl_cpu_settings;
};

LiveInputs read_live_inputs();

struct HostFacts {
    std::string sysroot;
    std::string architecture;
    std::optional<std::string> op_modes;    // "32-bit, 64-bit"
    std::optional<std::string> byte_order;  // only when the dump or kernel says
    CpuLists cpu_lists;
    std::vector<CpuType> cpu_types;  // [0] is the default type
    std::vector<CacheSummary> caches;
    std::vector<NumaNode> numa_nodes;
    std::vector<CpuVulnerability> cpu_vulnerabilities;  // lscpu's order
    HypervisorFacts hypervisor;
    CgroupFacts cgroup;
    CpuBudget cpu_budget;
    HostGuess guess;
    // Live only: a dump's CPU is not the one this process's OpenSSL runs on.
    std::optional<OpensslCpu> openssl_cpu;
    std::vector<std::string> warnings;

    const CpuType* default_type() const { return cpu_types.empty() ? nullptr : &cpu_types[0]; }
    uint32_t present_cpus() const;
    uint32_t online_cpus() const;
};

// `live` must be given exactly when `root` is the live machine.
HostFacts collect_host_facts(const SysRoot& root, const CpuidSource& cpuid,
                             const std::optional<LiveInputs>& live);
// The same with the real CPUID and live inputs when `root` is the live machine, none for a dump.
HostFacts collect_host_facts(const SysRoot& root);

// cpuinfo-based guess of the architecture for a dump ("x86_64", "aarch64", ...).
std::string infer_architecture(const Cpuinfo& cpuinfo);

// A warning when the process's machine (uname) is not the architecture /proc/cpuinfo describes:
// qemu-user shows an emulated arm64 process the x86 host's cpuinfo.
std::optional<std::string> emulation_warning(const std::string& machine,
                                             const std::string& described);

}  // namespace hostprobe::host
