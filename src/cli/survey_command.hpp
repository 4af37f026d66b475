// `hostprobe survey`: options, checks, then app::run_survey.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"

namespace hostprobe::cli {

int run_survey_command(const std::vector<std::string>& args, const EnvironmentLookup& environment);

}  // namespace hostprobe::cli
