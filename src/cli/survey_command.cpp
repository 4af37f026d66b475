#include "cli/survey_command.hpp"

#include <cstdio>

#include "app/survey.hpp"
#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/probe_options.hpp"
#include "emf/namespace_name.hpp"
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
    auto sysroot = checked_sysroot(options);
    if (!sysroot) return sysroot.error();
    config.sysroot = *sysroot;
    config.probes = runs::parse_probe_list(options.get("probes"));
    if (config.probes.empty() || config.probes.size() > kMaxSurveyRuns)
        return make_error(ErrorCode::invalid_argument,
                          "--probes must name 1 to " + std::to_string(kMaxSurveyRuns) + " runs");
    auto params = probe_params(options);
    if (!params) return params.error();
    config.params = *params;
    auto storage = storage_policy(options);
    if (!storage) return storage.error();
    config.storage = *storage;
    config.system_shell = options.get("system-shell");
    auto metadata_uri = ecs_metadata_uri(options);
    if (!metadata_uri) return metadata_uri.error();
    config.ecs_metadata_uri = *metadata_uri;
    auto task_prices = prices(options);
    if (!task_prices) return task_prices.error();
    config.prices = *task_prices;
    config.emf = options.is_on("emf");
    auto emf_namespace = emf::parse_namespace(options.get("emf-namespace"));
    if (!emf_namespace)
        return make_error(ErrorCode::invalid_argument,
                          "--emf-namespace: " + emf_namespace.error().message);
    config.emf_namespace = *emf_namespace;
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
