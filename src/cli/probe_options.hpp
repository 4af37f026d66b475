// The options `serve` and `survey` share: where the probes read (--sysroot) and may write
// (--disk-dir and its limits), the params they run with (--params, --params-file), the shell of
// the system probe, ECS task metadata and the prices of the task's cost. One definition, so
// that the two commands cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/result.hpp"
#include "probes/storage/storage_policy.hpp"
#include "task/task_cost.hpp"

namespace hostprobe::cli {

OptionSpec sysroot_option();

// --params-file, --params, --disk-dir, --disk-max-bytes, --disk-max-runtime, --system-shell.
// `purpose` says which runs the params are for ("started and scheduled runs").
std::vector<OptionSpec> probe_run_options(const std::string& purpose);
// --ecs-metadata-uri, --price-vcpu-hour, --price-gb-hour.
std::vector<OptionSpec> task_options();

// --emf and --emf-namespace; `when` says which documents are written ("every run as it
// finishes").
std::vector<OptionSpec> emf_options(const std::string& when);

// --sysroot, checked to be a directory.
Result<std::string> checked_sysroot(const ParsedOptions& options);

// What `serve` and `survey` take from the options above, each checked.
struct SharedProbeOptions {
    std::string sysroot;
    nlohmann::json params = nlohmann::json::object();  // probe name -> params
    probes::StoragePolicy storage;                     // where disk and files may write
    std::string system_shell;                          // empty: the shell tests are skipped
    std::string ecs_metadata_uri;                      // empty outside ECS
    task::Prices prices;
    bool emf = false;
    std::string emf_namespace;
};

// sysroot_option(), probe_run_options(), task_options() and emf_options(), in that order; the
// first bad one's message, which the command shows above its usage (exit status 2).
Result<SharedProbeOptions> parse_shared_probe_options(const ParsedOptions& options);

}  // namespace hostprobe::cli
