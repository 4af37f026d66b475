// hostprobe's guess of what is behind the CPU: microarchitecture, Graviton generation and the
// EC2 instance families that use the processor. Always labelled as a guess.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/cpu_types.hpp"
#include "host/hypervisor.hpp"

namespace hostprobe::host {

struct HostGuess {
    std::optional<std::string> microarchitecture;
    std::optional<std::string> codename;
    std::optional<std::string> graviton;
    std::vector<std::string> ec2_families;
    std::vector<std::string> notes;
};

HostGuess guess_host(const CpuType& cpu, const HypervisorFacts& hypervisor);

}  // namespace hostprobe::host
