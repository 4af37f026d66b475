// CPU caches from /sys/devices/system/cpu/cpuN/cache/index*, grouped into instances the way
// lscpu does: by the kernel's cache id where it exists, else by shared_cpu_map.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sysroot.hpp"

namespace hostprobe::host {

struct CacheSummary {
    std::string name;  // "L1d", "L1i", "L2", "L3" (named from level and type only)
    uint32_t level = 0;
    std::string type;          // "Data", "Instruction", "Unified"
    uint64_t size_bytes = 0;   // one instance (the largest, should they differ)
    uint64_t total_bytes = 0;  // all instances: what lscpu prints
    uint32_t instances = 0;
};

// `cpus` are the CPUs to look at (lscpu: every possible CPU that has a type).
std::vector<CacheSummary> read_caches(const SysRoot& root, const std::vector<size_t>& cpus);

// "32K" -> 32768, "6144K", "2M"; sysfs cache sizes.
uint64_t parse_cache_size(const std::string& text);

// lscpu's size_to_human_string: "1.5 MiB", "64 KiB", "512 B".
std::string human_size(uint64_t bytes);

}  // namespace hostprobe::host
