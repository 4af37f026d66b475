// The host facts as `serve` and `survey` start with them, their warnings logged once.
#pragma once

#include "core/logger.hpp"
#include "core/sysroot.hpp"
#include "host/host_facts.hpp"

namespace hostprobe::app {

// ECS task metadata may refine them later (task::TaskState::set_ecs).
host::HostFacts collect_startup_facts(const SysRoot& root, Logger& log);

}  // namespace hostprobe::app
