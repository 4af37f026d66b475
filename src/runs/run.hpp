// One run of a probe, as the API shows it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "core/shared_json.hpp"
#include "core/time_format.hpp"

namespace hostprobe::runs {

enum class RunState { queued, running, succeeded, failed, cancelled };

const char* to_string(RunState state);
Result<RunState> parse_run_state(const std::string& text);
inline bool is_finished(RunState state) {
    return state == RunState::succeeded || state == RunState::failed ||
           state == RunState::cancelled;
}

struct Run {
    std::string id;
    std::string probe;
    nlohmann::json params;  // normalized, defaults filled in
    std::string trigger;    // "api", "schedule", "start", "cli"
    RunState state = RunState::queued;
    double progress = 0;
    WallClock::time_point created_at;
    std::optional<WallClock::time_point> started_at;
    std::optional<WallClock::time_point> finished_at;
    std::string error;
    core::SharedJson result;  // null until there is one; "partial": true when cut short
    std::string text_report;
    double expected_seconds = 0;
};

nlohmann::json to_json(const Run& run);

}  // namespace hostprobe::runs
