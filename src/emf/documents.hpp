// The EMF lines hostprobe writes: one for the host (at start, and again when ECS task metadata
// arrives), and for every finished run a summary line carrying the whole result JSON followed
// by one line per measured group. Pure: the caller passes the facts and the time; the line
// writer (emf/line_writer.hpp) puts them out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ecs/task_stats_reader.hpp"
#include "runs/run.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::emf {

struct DocumentSettings {
    std::string namespace_name = "hostprobe";  // checked by parse_namespace
};

// Members on every line: hostprobe_kind ("host"), version, task_arn ("none" outside ECS), the
// fleet dimensions, the metrics Tasks (Count, always 1: summed per CpuModel it counts the tasks
// that got each model) and add_host_metrics', and hostprobe_host: GET /v1/host's JSON.
std::string host_document(const task::TaskFacts& facts, const DocumentSettings& settings,
                          int64_t timestamp_ms);

// First the summary (hostprobe_kind "run"; Probe dimension; RunSeconds, RunFailed, RunPartial
// and the probe's run-wide metrics; members run_id, probe, state, trigger, error, params and
// hostprobe_result: the whole result, replaced by hostprobe_result_dropped saying why when the
// line would pass kMaxDocumentBytes), then one "measurement" line per group of the probe's
// result (probe_groups.hpp) with run_id and probe. Timestamp: the run's end. A result that does
// not parse as its probe's struct gives the summary alone, with hostprobe_metrics_error.
std::vector<std::string> run_documents(const runs::Run& run, const task::TaskFacts& facts,
                                       const DocumentSettings& settings);

// The ECS task's stats (emf/task_groups.hpp): one "task" line for the task as a whole, then one
// per running container (Container dimension), each with task_arn and the fleet dimensions;
// nothing before a good reading. Timestamp: when the stats were read.
std::vector<std::string> task_documents(const ecs::TaskStatsSnapshot& snapshot,
                                        const task::TaskFacts& facts,
                                        const DocumentSettings& settings);

// Milliseconds since the epoch, as _aws.Timestamp wants them.
int64_t unix_milliseconds(WallClock::time_point time);

}  // namespace hostprobe::emf
