#include "cli/survey_command.hpp"

#include <cstdio>

#include "app/survey.hpp"
#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/probe_options.hpp"
#include "probes/registry.hpp"
#include "runs/requested_probes.hpp"
#include "runs/scheduler.hpp"

namespace hostprobe::cli {

namespace {

// A probe may be named twice (cipher before and after a disk run); a list longer than this is a
// mistake.
constexpr size_t kMaxSurveyRuns = 20;

OptionParser survey_parser() {
    std::vector<OptionSpec> specs = {
        {"probes", "PROBES", app::kDefaultSurveyProbes, "probes to run, in this order"},
        sysroot_option()};
    for (auto& spec : probe_run_options("the survey's runs"))
        specs.push_back(std::move(spec));
    for (auto& spec : task_options())
        specs.push_back(std::move(spec));
    for (auto& spec : emf_options("after each JSON line, the host's and each run's"))
        specs.push_back(std::move(spec));
    return OptionParser(
        "survey",
        "Identify the host, run the probes once and exit: a one-shot ECS task. stdout gets one\n"
        "JSON line for the host ({\"type\":\"hostprobe.host\",...}), one per run\n"
        "({\"type\":\"hostprobe.run\",...}) and a last one ({\"type\":\"hostprobe.survey\",...});\n"
        "logs go to stderr. Exit status: 0 every run succeeded, 3 one failed or was cancelled\n"
        "(its line is written all the same), 130 SIGTERM or SIGINT cancelled the survey, 1 the\n"
        "lines could not be written, 2 bad options.",
        std::move(specs));
}

Result<app::SurveyConfig> survey_config(const ParsedOptions& options) {
    app::SurveyConfig config;
    config.exit_codes = {.ok = kExitOk,
                         .run_failed = kExitProbeFailed,
                         .interrupted = kExitInterrupted,
                         .write_failed = kExitFailure};
    auto shared = parse_shared_probe_options(options);
    if (!shared) return shared.error();
    config.sysroot = std::move(shared->sysroot);
    config.params = std::move(shared->params);
    config.storage = std::move(shared->storage);
    config.system_shell = std::move(shared->system_shell);
    config.ecs_metadata_uri = std::move(shared->ecs_metadata_uri);
    config.prices = shared->prices;
    config.emf = shared->emf;
    config.emf_namespace = std::move(shared->emf_namespace);
    config.probes = runs::parse_probe_list(options.get("probes"));
    if (config.probes.empty() || config.probes.size() > kMaxSurveyRuns)
        return make_error(ErrorCode::invalid_argument,
                          "--probes must name 1 to " + std::to_string(kMaxSurveyRuns) + " runs");
    if (auto checked = runs::check_requested_probes(
            config.probes, config.params, probes::builtin_probes({.storage = config.storage}));
        !checked) {
        return checked.error();
    }
    return config;
}

}  // namespace

int run_survey_command(const std::vector<std::string>& args, const EnvironmentLookup& environment) {
    const OptionParser parser = survey_parser();
    const CommandLine command_line = parse_command(parser, args, environment);
    if (!command_line.options) return command_line.exit_code;
    auto config = survey_config(*command_line.options);
    if (!config) return usage_error(parser, config.error().message);
    Logger log(stderr);
    return app::run_survey(*config, stdout, log);
}

}  // namespace hostprobe::cli
