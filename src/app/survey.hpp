// `hostprobe survey`: a one-shot task. It identifies the host, runs the probes asked for through
// the same runner and registry as `serve`, writes one JSON line per run to stdout (the shapes
// are in survey_lines.hpp) and exits, so that an ECS task stops, and stops costing, once it has
// its answer. SIGTERM (ECS stopping the task) cancels the runs, writes what there is and exits.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/logger.hpp"
#include "probes/storage/storage_policy.hpp"
#include "task/task_cost.hpp"

namespace hostprobe::app {

// The statuses the survey exits with; the command line's table (cli/exit_codes.hpp) fills them.
struct SurveyExitCodes {
    int ok = 0;
    int run_failed = 3;     // a run failed or was cancelled
    int interrupted = 130;  // a signal cut the survey short
    int write_failed = 1;   // the lines could not be written
};

struct SurveyConfig {
    std::string sysroot = "/";
    std::vector<std::string> probes = {"cpu", "cipher"};  // run in this order
    nlohmann::json params = nlohmann::json::object();     // probe name -> params
    probes::StoragePolicy storage;                        // where disk and files may write
    std::string system_shell = "/bin/sh";                 // empty: shell tests skipped
    std::string ecs_metadata_uri;                         // empty outside ECS
    task::Prices prices;
    int probe_nice = 10;
    // --emf: the host's and each run's CloudWatch EMF lines too, after the JSON line of each.
    bool emf = false;
    std::string emf_namespace = "hostprobe";
    SurveyExitCodes exit_codes;
};

// The default probes, as `--probes` shows them.
inline constexpr const char* kDefaultSurveyProbes = "cpu,cipher";

// Writes the lines to `out`, logs to `log`, and returns config.exit_codes' status for how it
// went. The probes and params must have been checked (runs::check_requested_probes).
int run_survey(const SurveyConfig& config, std::FILE* out, Logger& log);

}  // namespace hostprobe::app
