// HostFacts as lscpu-style text (`hostprobe cpu`): lscpu's keys and order where lscpu has them,
// then hostprobe's own lines (cgroup, CPU budget, throttling, guesses).
#pragma once

#include <optional>
#include <string>

#include "host/host_facts.hpp"

namespace hostprobe::report {

std::string host_text(const host::HostFacts& facts,
                      const std::optional<host::ThrottlingCounters>& throttling = std::nullopt);

}  // namespace hostprobe::report
