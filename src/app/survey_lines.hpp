// What `hostprobe survey` writes to stdout: one JSON document a line, each with a "type" member
// first, so that a log group shared with other programs can be filtered on it (CloudWatch Logs
// filter pattern `{ $.type = "hostprobe.*" }`, Logs Insights `filter type like /^hostprobe\./`).
//
//   {"type":"hostprobe.host","host":{...}}            once, first: GET /v1/host's JSON (no "live")
//   {"type":"hostprobe.task_stats","task":{...},"task_stats":{...}}
//                                                     in an ECS task, once, second: GET /v1/task
//   {"type":"hostprobe.run","task":{...},"run":{...}} per run: "run" as GET /v1/runs/{id} shows it
//   {"type":"hostprobe.survey","task":{...},...}      once, last: how the survey ended
//
// "task" repeats who measured (CPU model, microarchitecture, ECS task, cost) on every line after
// the first, so that a Logs Insights query can group runs by CPU model without a join. It comes
// before "run" because Logs Insights discovers only a JSON event's first fields.
// With --emf, each JSON line is followed by its CloudWatch EMF lines (emf/documents.hpp; they
// have no "type" member, so the filters above pass them by).
// The shapes are a contract (README "survey"): add members freely, never rename.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runs/run.hpp"

namespace hostprobe::app {

inline constexpr const char* kHostLineType = "hostprobe.host";
inline constexpr const char* kTaskStatsLineType = "hostprobe.task_stats";
inline constexpr const char* kRunLineType = "hostprobe.run";
inline constexpr const char* kSurveyLineType = "hostprobe.survey";

// The "task" member from GET /v1/host's JSON: model_name, microarchitecture, hypervisor,
// task_arn, family, launch_type, availability_zone, cpu_limit_cores, memory_limit_bytes and
// dollars_per_hour; null where unknown.
nlohmann::json task_identity(const nlohmann::json& host);

// How the survey ended: the probes asked for, how many runs ended in each state, the signal that
// cut it short (null when none) and the exit status.
struct SurveyOutcome {
    std::vector<std::string> probes;
    size_t succeeded = 0;
    size_t failed = 0;
    size_t cancelled = 0;
    std::string interrupted_by;  // "SIGTERM"; empty when none
    int exit_code = 0;
};

// Each a single line of JSON without the newline; "type" first.
std::string host_line(const nlohmann::json& host);
std::string task_stats_line(const nlohmann::json& identity, const nlohmann::json& task_stats);
std::string run_line(const nlohmann::json& identity, const runs::Run& run);
std::string survey_line(const nlohmann::json& identity, const SurveyOutcome& outcome);

}  // namespace hostprobe::app
