#include "report/task_json.hpp"

#include "core/strings.hpp"
#include "core/time_format.hpp"
#include "host/caches.hpp"

namespace hostprobe::report {

namespace {

using ecs::ContainerReading;
using ecs::ContainerStats;
using nlohmann::json;

constexpr const char* kSaturationExplanation =
    "The share of the last minute in which the task's containers together used at least 95% "
    "of the task's CPU limit. Derived from the containers' CPU use, because the task stats' own "
    "throttling_data stays 0 on Fargate and EC2 even when a task is throttled "
    "(aws/containers-roadmap#2766); sidecar_cgroup_throttling is this container's own CFS "
    "throttling, the one measured figure.";

template <typename T>
json or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

json text_or_null(const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
}

std::optional<double> ratio(std::optional<double> part, std::optional<double> whole) {
    if (!part || !whole || *whole <= 0) return std::nullopt;
    return *part / *whole;
}

std::optional<double> as_double(std::optional<uint64_t> value) {
    return value ? std::optional(static_cast<double>(*value)) : std::nullopt;
}

json networks_json(const ContainerStats& stats) {
    json out = json::array();
    for (const auto& n : stats.interfaces) {
        out.push_back({{"interface", n.name},
                       {"receive_bytes", n.receive_bytes},
                       {"receive_packets", n.receive_packets},
                       {"receive_errors", n.receive_errors},
                       {"receive_dropped", n.receive_dropped},
                       {"transmit_bytes", n.transmit_bytes},
                       {"transmit_packets", n.transmit_packets},
                       {"transmit_errors", n.transmit_errors},
                       {"transmit_dropped", n.transmit_dropped}});
    }
    return out;
}

json container_json(const ContainerReading& c, std::optional<double> cores) {
    json out = {{"name", c.name},
                {"image", text_or_null(c.image)},
                {"type", text_or_null(c.type)},
                {"known_status", text_or_null(c.known_status)},
                {"health_status", text_or_null(c.health_status)},
                {"exit_code", or_null(c.exit_code)},
                {"restart_count", or_null(c.restart_count)},
                {"running", c.stats.has_value()},
                {"cpu_cores", or_null(cores)},
                {"memory_limit_bytes", or_null(c.memory_limit_bytes)},
                {"memory_limit_source", text_or_null(c.memory_limit_source)}};
    const ContainerStats none;
    const ContainerStats& s = c.stats ? *c.stats : none;
    const auto working_set = s.memory_working_set_bytes();
    out["cpu_seconds"] = s.cpu_ns ? json(static_cast<double>(*s.cpu_ns) / 1e9) : json(nullptr);
    out["memory_usage_bytes"] = or_null(s.memory_usage_bytes);
    out["memory_working_set_bytes"] = or_null(working_set);
    out["memory_limit_used_ratio"] =
        or_null(ratio(as_double(working_set), as_double(c.memory_limit_bytes)));
    out["memory_cache_bytes"] = or_null(s.memory_cache_bytes);
    out["memory_max_usage_bytes"] = or_null(s.memory_max_usage_bytes);
    out["page_faults"] = or_null(s.page_faults);
    out["major_page_faults"] = or_null(s.major_page_faults);
    out["blkio_read_bytes"] = or_null(s.blkio_read_bytes);
    out["blkio_write_bytes"] = or_null(s.blkio_write_bytes);
    out["pids"] = or_null(s.pids);
    out["stats_throttled_periods"] = or_null(s.throttled_periods);
    out["networks"] = networks_json(s);
    return out;
}

std::vector<std::string> all_warnings(const ecs::TaskStatsSnapshot& snapshot) {
    std::vector<std::string> out;
    if (snapshot.error) out.push_back("the newest read failed: " + *snapshot.error);
    out.insert(out.end(), snapshot.memory_warnings.begin(), snapshot.memory_warnings.end());
    out.insert(out.end(), snapshot.reading.warnings.begin(), snapshot.reading.warnings.end());
    return out;
}

json sidecar_throttling_json(const std::optional<host::ThrottlingCounters>& counters) {
    if (!counters) return nullptr;
    return {{"periods", counters->periods},
            {"throttled_periods", counters->throttled_periods},
            {"throttled_seconds", counters->throttled_seconds}};
}

std::string cores_text(double cores) {
    return format_fixed(cores, cores < 0.1 ? 3 : 2);
}

std::string container_line(const ContainerReading& c, std::optional<double> cores) {
    std::string line = "  " + c.name + ": " + (c.known_status.empty() ? "-" : c.known_status);
    if (!c.health_status.empty()) line += " (" + c.health_status + ")";
    if (c.exit_code) line += ", exit code " + std::to_string(*c.exit_code);
    if (c.restart_count)
        line += ", " + std::to_string(*c.restart_count) +
                (*c.restart_count == 1 ? " restart" : " restarts");
    if (!c.stats) return line;
    if (cores) line += ", " + cores_text(*cores) + " cores";
    if (auto ws = c.stats->memory_working_set_bytes()) {
        line += ", working set " + host::human_size(*ws);
        if (c.memory_limit_bytes) {
            line += " of " + host::human_size(*c.memory_limit_bytes) + " (" +
                    format_percent(static_cast<double>(*ws) /
                                   static_cast<double>(*c.memory_limit_bytes)) +
                    ")";
        }
    }
    for (const auto& n : c.stats->interfaces) {
        line += ", " + n.name + " rx " + host::human_size(n.receive_bytes) + " tx " +
                host::human_size(n.transmit_bytes);
    }
    const ContainerStats& s = *c.stats;
    if (s.blkio_read_bytes && s.blkio_write_bytes) {
        line += ", block I/O read " + host::human_size(*s.blkio_read_bytes) + " write " +
                host::human_size(*s.blkio_write_bytes);
    }
    if (s.page_faults) {
        line += ", " + std::to_string(*s.page_faults) + " page faults (" +
                std::to_string(s.major_page_faults.value_or(0)) + " major)";
    }
    if (s.pids) line += ", " + std::to_string(*s.pids) + " processes";
    return line;
}

}  // namespace

json task_json(const ecs::TaskStatsSnapshot& snapshot,
               const std::optional<host::ThrottlingCounters>& sidecar_throttling) {
    const auto& reading = snapshot.reading;
    const auto& usage = snapshot.usage;
    json containers = json::array();
    for (size_t i = 0; i < reading.containers.size(); ++i) {
        containers.push_back(container_json(
            reading.containers[i],
            i < usage.container_cpu_cores.size() ? usage.container_cpu_cores[i] : std::nullopt));
    }
    const auto working_set = ecs::memory_working_set_bytes(reading);
    const bool has_interval = usage.interval_end_ns > usage.interval_start_ns;
    return {
        {"read_at", snapshot.reads > 0 ? json(format_rfc3339(snapshot.read_at)) : json(nullptr)},
        {"reads", snapshot.reads},
        {"failures", snapshot.failures},
        {"error", or_null(snapshot.error)},
        {"cpu_limit_cores", or_null(reading.cpu_limit_cores)},
        {"memory_limit_bytes", or_null(reading.memory_limit_bytes)},
        {"cpu_cores_used", or_null(usage.cpu_cores)},
        {"cpu_limit_used_ratio", or_null(ratio(usage.cpu_cores, reading.cpu_limit_cores))},
        {"interval_seconds",
         has_interval
             ? json(static_cast<double>(usage.interval_end_ns - usage.interval_start_ns) / 1e9)
             : json(nullptr)},
        {"cpu_saturation",
         {{"ratio", or_null(snapshot.saturation.ratio)},
          {"saturated_seconds", snapshot.saturation.saturated_seconds},
          {"covered_seconds", snapshot.saturation.covered_seconds},
          {"window_seconds", static_cast<double>(ecs::kSaturationWindowNs) / 1e9},
          {"threshold_share_of_limit", ecs::kSaturatedShareOfLimit},
          {"explanation", kSaturationExplanation}}},
        {"memory_working_set_bytes", or_null(working_set)},
        {"memory_limit_used_ratio",
         or_null(ratio(as_double(working_set), as_double(reading.memory_limit_bytes)))},
        {"sidecar_cgroup_throttling", sidecar_throttling_json(sidecar_throttling)},
        {"containers", containers},
        {"containers_dropped", reading.containers_dropped},
        {"warnings", all_warnings(snapshot)},
    };
}

std::string task_summary(const ecs::TaskStatsSnapshot& snapshot) {
    const auto& reading = snapshot.reading;
    std::vector<std::string> parts;
    if (snapshot.usage.cpu_cores) {
        std::string cpu = cores_text(*snapshot.usage.cpu_cores);
        if (reading.cpu_limit_cores) {
            cpu += " of " + format_fixed(*reading.cpu_limit_cores, 2) + " vCPU (" +
                   format_percent(*snapshot.usage.cpu_cores / *reading.cpu_limit_cores) + ")";
        } else {
            cpu += " cores (no task CPU limit)";
        }
        parts.push_back(cpu);
    }
    if (snapshot.saturation.ratio) {
        parts.push_back("CPU-saturated " + format_percent(*snapshot.saturation.ratio) +
                        " of the last minute");
    }
    if (auto ws = ecs::memory_working_set_bytes(reading)) {
        std::string memory = "working set " + host::human_size(*ws);
        if (reading.memory_limit_bytes)
            memory += " of " + host::human_size(*reading.memory_limit_bytes);
        parts.push_back(memory);
    }
    size_t stopped = 0;
    for (const auto& c : reading.containers)
        stopped += c.stats ? 0 : 1;
    parts.push_back(std::to_string(reading.containers.size()) +
                    (reading.containers.size() == 1 ? " container" : " containers") +
                    (stopped > 0 ? " (" + std::to_string(stopped) + " not running)" : ""));
    if (snapshot.error) parts.push_back("newest read failed");
    return join(parts, ", ");
}

std::string task_text(const ecs::TaskStatsSnapshot& snapshot,
                      const std::optional<host::ThrottlingCounters>& sidecar_throttling) {
    std::string out = "Task:  " + task_summary(snapshot) + "\n";
    if (snapshot.reads > 0) out += "Read at:  " + format_rfc3339(snapshot.read_at) + "\n";
    if (snapshot.saturation.ratio) {
        out +=
            "CPU saturation:  derived (at least 95% of the task's CPU limit), because ECS's "
            "throttling_data stays 0\n";
    }
    if (sidecar_throttling) {
        out += "Sidecar throttling:  " + std::to_string(sidecar_throttling->throttled_periods) +
               " of " + std::to_string(sidecar_throttling->periods) + " periods, " +
               format_fixed(sidecar_throttling->throttled_seconds, 3) +
               " s throttled (this container's own cgroup)\n";
    }
    out += "Containers:\n";
    const auto& reading = snapshot.reading;
    for (size_t i = 0; i < reading.containers.size(); ++i) {
        out += container_line(reading.containers[i], i < snapshot.usage.container_cpu_cores.size()
                                                         ? snapshot.usage.container_cpu_cores[i]
                                                         : std::nullopt) +
               "\n";
    }
    for (const auto& warning : all_warnings(snapshot))
        out += "Warning:  " + warning + "\n";
    return out;
}

}  // namespace hostprobe::report
