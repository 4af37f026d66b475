// The command line: `hostprobe serve|cpu|healthcheck|--help|--version`. Returns the exit status:
// 0 success, 1 failure, 2 usage error.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace hostprobe::cli {

int run(const std::vector<std::string>& args, const EnvironmentLookup& environment);

}  // namespace hostprobe::cli
