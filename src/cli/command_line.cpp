#include "cli/command_line.hpp"

#include <cstdio>

#include "cli/exit_codes.hpp"

namespace hostprobe::cli {

namespace {

bool asks_for_help(const std::vector<std::string>& args) {
    for (const auto& arg : args) {
        if (arg == "--") return false;
        if (arg == "--help" || arg == "-h") return true;
    }
    return false;
}

}  // namespace

int usage_error(const OptionParser& parser, const std::string& message) {
    std::fprintf(stderr, "hostprobe: %s\n\n%s", message.c_str(), parser.usage().c_str());
    return kExitUsage;
}

CommandLine parse_command(const OptionParser& parser, const std::vector<std::string>& args,
                          const EnvironmentLookup& environment) {
    if (asks_for_help(args)) {
        std::fputs(parser.usage().c_str(), stdout);
        return {std::nullopt, kExitOk};
    }
    auto parsed = parser.parse(args, environment);
    if (!parsed) return {std::nullopt, usage_error(parser, parsed.error().message)};
    if (!parsed->positionals().empty()) {
        return {std::nullopt,
                usage_error(parser, "unexpected argument '" + parsed->positionals().front() + "'")};
    }
    return {std::move(parsed).value(), kExitOk};
}

}  // namespace hostprobe::cli
