#include "emf/documents.hpp"

#include <chrono>

#include "core/build_info.hpp"
#include "emf/document.hpp"
#include "emf/fleet_dimensions.hpp"
#include "emf/probe_groups.hpp"
#include "emf/task_groups.hpp"
#include "report/host_json.hpp"

namespace hostprobe::emf {

namespace {

// Members every line carries, so that Logs Insights can join a run's lines and tell agents apart.
nlohmann::json common_members(const char* kind, const task::TaskFacts& facts) {
    return {{"hostprobe_kind", kind},
            {"version", kVersion},
            {"task_arn", facts.ecs && !facts.ecs->task_arn.empty() ? facts.ecs->task_arn : "none"}};
}

DocumentParts parts_for(const task::TaskFacts& facts, const DocumentSettings& settings,
                        int64_t timestamp_ms, const MetricGroup& group, nlohmann::json members) {
    DocumentParts parts;
    parts.namespace_name = settings.namespace_name;
    parts.timestamp_ms = timestamp_ms;
    parts.dimensions = fleet_dimensions(facts);
    std::vector<std::string> own;
    for (const auto& dimension : group.dimensions) {
        parts.dimensions.push_back(dimension);
        own.push_back(dimension.name);
    }
    parts.dimension_sets = dimension_sets(own);
    parts.metrics = group.metrics;
    parts.members = std::move(members);
    return parts;
}

// The measurement groups of a finished run's result, by probe; the cipher's run-wide metrics
// go to the summary. Throws when the result does not parse as its probe's struct.
std::vector<MetricGroup> measurement_groups(const runs::Run& run, const nlohmann::json& result,
                                            const task::TaskFacts& facts, MetricGroup& summary) {
    if (run.probe == "cipher") {
        const auto cipher = result.get<probes::CipherResult>();
        add_cipher_run_metrics(cipher, summary);
        return cipher_groups(cipher);
    }
    if (run.probe == "disk") return disk_groups(result.get<probes::DiskResult>());
    if (run.probe == "files") return files_groups(result.get<probes::FilesResult>());
    if (run.probe == "system") return system_groups(result.get<probes::SystemResult>());
    if (run.probe == "cpu") add_host_metrics(facts, summary);
    return {};
}

MetricGroup run_summary_group(const runs::Run& run, bool partial) {
    MetricGroup summary;
    summary.dimensions = {{"Probe", run.probe}};
    if (run.started_at && run.finished_at)
        summary.add("RunSeconds", Unit::seconds,
                    std::chrono::duration<double>(*run.finished_at - *run.started_at).count());
    summary.add("RunFailed", Unit::count, run.state == runs::RunState::failed ? 1 : 0);
    summary.add("RunPartial", Unit::count, partial ? 1 : 0);
    return summary;
}

nlohmann::json run_members(const char* kind, const runs::Run& run, const task::TaskFacts& facts) {
    nlohmann::json members = common_members(kind, facts);
    members["run_id"] = run.id;
    members["probe"] = run.probe;
    return members;
}

// The summary line with the whole result, or without it when that would make the line too long
// for one CloudWatch Logs event.
std::string summary_line(DocumentParts parts, const nlohmann::json& result) {
    parts.members["hostprobe_result"] = result;
    std::string line = document_line(parts);
    if (line.size() <= kMaxDocumentBytes) return line;
    parts.members["hostprobe_result"] = nullptr;
    parts.members["hostprobe_result_dropped"] =
        "the result JSON would make this line " + std::to_string(line.size()) +
        " bytes, past the " + std::to_string(kMaxDocumentBytes) +
        " bytes of one CloudWatch Logs event; GET /v1/runs/" + parts.members.value("run_id", "") +
        " has it";
    return document_line(parts);
}

}  // namespace

int64_t unix_milliseconds(WallClock::time_point time) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

std::string host_document(const task::TaskFacts& facts, const DocumentSettings& settings,
                          int64_t timestamp_ms) {
    MetricGroup group;
    group.add("Tasks", Unit::count, 1);
    add_host_metrics(facts, group);
    nlohmann::json members = common_members("host", facts);
    members["hostprobe_host"] = report::host_json(facts);
    return document_line(parts_for(facts, settings, timestamp_ms, group, std::move(members)));
}

std::vector<std::string> run_documents(const runs::Run& run, const task::TaskFacts& facts,
                                       const DocumentSettings& settings) {
    const int64_t timestamp_ms = unix_milliseconds(run.finished_at.value_or(WallClock::now()));
    const nlohmann::json result = run.result.get();
    const bool partial = run.state == runs::RunState::cancelled ||
                         (result.is_object() && result.contains("partial") &&
                          result["partial"].is_boolean() && result["partial"].get<bool>());
    MetricGroup summary = run_summary_group(run, partial);
    nlohmann::json members = run_members("run", run, facts);
    members["state"] = runs::to_string(run.state);
    members["trigger"] = run.trigger;
    members["error"] = run.error;
    members["params"] = run.params;

    std::vector<MetricGroup> groups;
    if (!result.is_null()) {
        try {
            groups = measurement_groups(run, result, facts, summary);
        } catch (const std::exception& error) {
            groups.clear();
            members["hostprobe_metrics_error"] =
                run.probe + " result does not parse: " + error.what();
        }
    }
    std::vector<std::string> lines;
    lines.push_back(summary_line(
        parts_for(facts, settings, timestamp_ms, summary, std::move(members)), result));
    for (const auto& group : groups)
        lines.push_back(document_line(parts_for(facts, settings, timestamp_ms, group,
                                                run_members("measurement", run, facts))));
    return lines;
}

std::vector<std::string> task_documents(const ecs::TaskStatsSnapshot& snapshot,
                                        const task::TaskFacts& facts,
                                        const DocumentSettings& settings) {
    const int64_t timestamp_ms = unix_milliseconds(snapshot.read_at);
    std::vector<std::string> lines;
    for (const auto& group : task_stats_groups(snapshot)) {
        lines.push_back(document_line(
            parts_for(facts, settings, timestamp_ms, group, common_members("task", facts))));
    }
    return lines;
}

}  // namespace hostprobe::emf
