// CPU topology from /sys/devices/system/cpu, computed like lscpu (lscpu-topology.c): which CPUs
// exist, are present and online; threads per core, cores per socket and sockets per CPU type;
// NUMA nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_set.hpp"
#include "core/sysroot.hpp"

namespace hostprobe::host {

struct CpuLists {
    std::optional<CpuSet> possible;
    std::optional<CpuSet> present;
    std::optional<CpuSet> online;
    std::vector<std::string> warnings;
};

CpuLists read_cpu_lists(const SysRoot& root);

struct TypeTopology {
    uint32_t threads_per_core = 0;
    uint32_t cores_per_socket = 0;
    uint32_t sockets = 0;
    uint32_t cores = 0;    // distinct thread-sibling sets
    uint32_t books = 0;    // s390 only
    uint32_t drawers = 0;  // s390 only
};

// `cpus` are the CPUs of one type; `max_thread_id` is s390's cpuinfo hint.
TypeTopology read_type_topology(const SysRoot& root, const std::vector<size_t>& cpus,
                                const std::optional<std::string>& max_thread_id);

struct NumaNode {
    uint32_t id = 0;
    CpuSet cpus;
};

std::vector<NumaNode> read_numa_nodes(const SysRoot& root);

}  // namespace hostprobe::host
