// What every option-table command does first: --help, parsing, and a usage error (exit status 2)
// that names the problem above the command's usage.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace hostprobe::cli {

// Prints the message and the usage to stderr; returns kExitUsage.
int usage_error(const OptionParser& parser, const std::string& message);

// A command's options, or the status to exit with when --help was asked or the usage is wrong.
struct CommandLine {
    std::optional<ParsedOptions> options;
    int exit_code = 0;
};

// --help prints the usage (exit 0); positional arguments are refused.
CommandLine parse_command(const OptionParser& parser, const std::vector<std::string>& args,
                          const EnvironmentLookup& environment);

}  // namespace hostprobe::cli
