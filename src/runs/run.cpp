#include "runs/run.hpp"

namespace hostprobe::runs {

const char* to_string(RunState state) {
    switch (state) {
        case RunState::queued: return "queued";
        case RunState::running: return "running";
        case RunState::succeeded: return "succeeded";
        case RunState::failed: return "failed";
        case RunState::cancelled: return "cancelled";
    }
    return "failed";
}

Result<RunState> parse_run_state(const std::string& text) {
    for (RunState state : {RunState::queued, RunState::running, RunState::succeeded,
                           RunState::failed, RunState::cancelled}) {
        if (text == to_string(state)) return state;
    }
    return make_error(
        ErrorCode::invalid_argument,
        "state '" + text + "' is not one of queued, running, succeeded, failed, cancelled");
}

nlohmann::json to_json(const Run& run) {
    auto time_or_null = [](const std::optional<WallClock::time_point>& time) {
        return time ? nlohmann::json(format_rfc3339(*time)) : nlohmann::json(nullptr);
    };
    return {{"id", run.id},
            {"probe", run.probe},
            {"params", run.params},
            {"trigger", run.trigger},
            {"state", to_string(run.state)},
            {"progress", run.progress},
            {"created_at", format_rfc3339(run.created_at)},
            {"started_at", time_or_null(run.started_at)},
            {"finished_at", time_or_null(run.finished_at)},
            {"error", run.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.error)},
            {"result", run.result.get()}};
}

}  // namespace hostprobe::runs
