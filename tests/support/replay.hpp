// A seed machine's facts as hostprobe collects them, replayed from tests/fixtures/sysroots/
// (no CPUID of this machine, no ECS metadata).
#pragma once

#include <optional>
#include <string>

#include "core/sysroot.hpp"
#include "host/host_facts.hpp"
#include "support/paths.hpp"

namespace hostprobe::testing {

inline host::HostFacts replay_sysroot(const std::string& name) {
    return host::collect_host_facts(SysRoot(sysroot(name)), host::NoCpuid(), std::nullopt);
}

}  // namespace hostprobe::testing
