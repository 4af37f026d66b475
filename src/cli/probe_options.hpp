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
// --disk-dir (repeatable), --disk-max-bytes, --disk-max-runtime.
Result<probes::StoragePolicy> storage_policy(const ParsedOptions& options);
// --params or --params-file (not both): {"cipher": {...}}; an empty object when neither.
Result<nlohmann::json> probe_params(const ParsedOptions& options);
// {"cipher": {...}, "cpu": {}}: a JSON object of objects. `origin` names it in errors.
Result<nlohmann::json> parse_params(const std::string& text, const std::string& origin);
// --ecs-metadata-uri, empty or a valid http URL.
Result<std::string> ecs_metadata_uri(const ParsedOptions& options);
// --price-vcpu-hour and --price-gb-hour.
Result<task::Prices> prices(const ParsedOptions& options);

}  // namespace hostprobe::cli
