#include "app/survey_lines.hpp"

#include "core/json_text.hpp"

namespace hostprobe::app {

namespace {

// {"type":TYPE,<members in the given order>}: nlohmann's objects sort their keys, and "type"
// must come first.
std::string ordered_line(const char* type,
                         const std::vector<std::pair<std::string, nlohmann::json>>& members) {
    std::string line = "{\"type\":" + json_text(type);
    for (const auto& [name, value] : members)
        line += "," + json_text(name) + ":" + json_text(value);
    return line + "}";
}

// host[first][second], or null.
nlohmann::json member_of(const nlohmann::json& host, const char* first, const char* second) {
    if (!host.contains(first) || !host[first].is_object()) return nullptr;
    return host[first].value(second, nlohmann::json());
}

}  // namespace

nlohmann::json task_identity(const nlohmann::json& host) {
    return {{"model_name", member_of(host, "cpu", "model_name")},
            {"microarchitecture", member_of(host, "guess", "microarchitecture")},
            {"hypervisor", member_of(host, "hypervisor", "vendor")},
            {"task_arn", member_of(host, "ecs", "task_arn")},
            {"family", member_of(host, "ecs", "family")},
            {"launch_type", member_of(host, "ecs", "launch_type")},
            {"availability_zone", member_of(host, "ecs", "availability_zone")},
            {"cpu_limit_cores", member_of(host, "ecs", "cpu_limit_cores")},
            {"memory_limit_bytes", member_of(host, "ecs", "memory_limit_bytes")},
            {"dollars_per_hour", member_of(host, "cost", "dollars_per_hour")}};
}

std::string host_line(const nlohmann::json& host) {
    return ordered_line(kHostLineType, {{"host", host}});
}

std::string task_stats_line(const nlohmann::json& identity, const nlohmann::json& task_stats) {
    return ordered_line(kTaskStatsLineType, {{"task", identity}, {"task_stats", task_stats}});
}

std::string run_line(const nlohmann::json& identity, const runs::Run& run) {
    return ordered_line(kRunLineType, {{"task", identity}, {"run", runs::to_json(run)}});
}

std::string survey_line(const nlohmann::json& identity, const SurveyOutcome& outcome) {
    return ordered_line(kSurveyLineType,
                        {{"task", identity},
                         {"probes", outcome.probes},
                         {"succeeded", outcome.succeeded},
                         {"failed", outcome.failed},
                         {"cancelled", outcome.cancelled},
                         {"interrupted_by", outcome.interrupted_by.empty()
                                                ? nlohmann::json()
                                                : nlohmann::json(outcome.interrupted_by)},
                         {"exit_code", outcome.exit_code}});
}

}  // namespace hostprobe::app
