#include "runs/run.hpp"

#include <string_view>

#include "core/json_text.hpp"

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

namespace {

// Everything but the result, which is null here.
nlohmann::json envelope(const Run& run) {
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
            {"result", nullptr}};
}

// Pretty-printed JSON has raw newlines only between tokens (a newline in a string is "\n"),
// so indenting every line after the first shifts the whole value right.
void append_indented(std::string& out, std::string_view text, size_t indent) {
    size_t start = 0;
    for (size_t newline = text.find('\n'); newline != std::string_view::npos;
         newline = text.find('\n', start)) {
        out.append(text, start, newline + 1 - start);
        out.append(indent, ' ');
        start = newline + 1;
    }
    out.append(text, start);
}

}  // namespace

nlohmann::json to_json(const Run& run) {
    nlohmann::json json = envelope(run);
    json["result"] = run.result.get();
    return json;
}

void append_json_text(std::string& out, const Run& run, size_t indent) {
    const std::string head = json_text(envelope(run), 2);
    // A top-level key: params, one level deeper, cannot match this indentation.
    static constexpr std::string_view kResultKey = "\n  \"result\": ";
    const size_t key = head.find(kResultKey);
    const size_t value = key + kResultKey.size();
    const size_t after = value + std::string_view("null").size();
    append_indented(out, std::string_view(head).substr(0, value), indent);
    append_indented(out, run.result.pretty_text(), indent + 2);
    append_indented(out, std::string_view(head).substr(after), indent);
}

std::string to_json_text(const Run& run, size_t indent) {
    std::string out;
    out.reserve(run.result.pretty_size() + 1024);
    append_json_text(out, run, indent);
    return out;
}

}  // namespace hostprobe::runs
