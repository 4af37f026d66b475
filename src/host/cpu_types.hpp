// CPU types ready to report: cpuinfo's raw types with ARM ids decoded (implementer -> vendor,
// part -> model name, variant/revision -> "r1p1"), their CPUs and their topology.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sysroot.hpp"
#include "host/cpuinfo.hpp"
#include "host/topology.hpp"

namespace hostprobe::host {

struct ArmIdentity {
    uint32_t implementer = 0;
    std::optional<uint32_t> part;
    std::optional<uint32_t> variant;
    std::optional<uint32_t> revision;
    std::optional<std::string> cloud_note;  // from the parts table: which cloud CPUs use it
};

struct CpuType {
    std::optional<std::string> vendor_id;
    std::optional<std::string> model_name;
    std::optional<std::string> family;
    std::optional<std::string> model;     // lscpu's "Model:": the revision where one is given
    std::optional<std::string> stepping;  // ARM: "r<variant>p<revision>"
    std::vector<std::string> flags;
    std::optional<std::string> flags_line;  // as cpuinfo writes it (lscpu prints it verbatim)
    std::optional<std::string> bogomips;
    std::optional<std::string> mhz;
    std::optional<std::string> microcode;
    std::optional<std::string> address_sizes;
    std::optional<std::string> max_thread_id;
    std::optional<ArmIdentity> arm;
    std::vector<size_t> cpus;
    TypeTopology topology;
};

CpuType decode_cpu_type(const RawCpuType& raw);

// Every possible CPU gets a type (CPUs cpuinfo did not describe get the default one).
std::vector<CpuType> build_cpu_types(const SysRoot& root, const Cpuinfo& cpuinfo,
                                     const CpuSet& possible);

}  // namespace hostprobe::host
