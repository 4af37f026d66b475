// One run of a probe, as the API shows it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/compressed_text.hpp"
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
    core::SharedJson result;           // null until there is one; "partial": true when cut short
    core::CompressedText text_report;  // deflated: the history keeps it for the agent's life
    double expected_seconds = 0;
};

nlohmann::json to_json(const Run& run);
// json_text(to_json(run), 2) with every line after the first indented by `indent` more spaces,
// made without copying the result: its cached text is spliced in. Listings append to one body.
std::string to_json_text(const Run& run, size_t indent = 0);
void append_json_text(std::string& out, const Run& run, size_t indent);

}  // namespace hostprobe::runs
