// `hostprobe run <probe> [--<param> value ...] [--json] [--sysroot DIR]`: a probe in the
// foreground (e.g. through ECS Exec), through the same runner the daemon uses.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace hostprobe::cli {

int run_probe_command(const std::vector<std::string>& args, const EnvironmentLookup& environment);

}  // namespace hostprobe::cli
