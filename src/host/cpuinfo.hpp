// /proc/cpuinfo parsed the way util-linux lscpu does it (lscpu-cputype.c), so that hostprobe
// and lscpu agree on every machine: each processor block yields a CPU type; types that agree on
// vendor, model, model name and stepping are merged, the first block of each kind winning.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.hpp"

namespace hostprobe::host {

// Raw values as cpuinfo writes them; which key fills which field depends on the architecture
// (x86 "vendor_id" and ARM "CPU implementer" both fill vendor).
struct RawCpuType {
    std::optional<std::string> vendor;
    std::optional<std::string> family;
    std::optional<std::string> model;
    std::optional<std::string> model_name;
    std::optional<std::string> revision;
    std::optional<std::string> stepping;
    std::optional<std::string> bogomips;
    std::optional<std::string> flags;
    std::optional<std::string> max_thread_id;  // s390
    std::optional<std::string> address_sizes;
    std::optional<std::string> isa;
    std::optional<std::string> microcode;
    std::optional<std::string> mhz;  // of the first CPU of the type
};

struct Cpuinfo {
    std::vector<RawCpuType> types;      // de-duplicated, in lscpu's order; types[0] is the default
    std::map<size_t, size_t> cpu_type;  // CPU number -> index into types
    std::map<size_t, std::string> cpu_mhz;        // CPU number -> "cpu MHz"
    std::optional<std::string> arm_architecture;  // ARM's "CPU architecture" (7, 8), first seen
};

// `possible` limits which CPU numbers are accepted (lscpu ignores processor blocks for CPUs
// that are not possible); without it every number is accepted.
Cpuinfo parse_cpuinfo(std::string_view text, const std::optional<CpuSet>& possible);

}  // namespace hostprobe::host
