#include "metrics/task_stats_collector.hpp"

#include <functional>

#include "metrics/family_builder.hpp"

namespace hostprobe::metrics {

namespace {

using ecs::ContainerReading;
using ecs::ContainerStats;
using ecs::InterfaceCounters;

double as_double(uint64_t value) {
    return static_cast<double>(value);
}

// One family over the running containers with a value.
FamilyBuilder per_container(FamilyBuilder family, const ecs::TaskStatsReading& reading,
                            const std::function<std::optional<double>(const ContainerStats&)>& of) {
    for (const auto& container : reading.containers) {
        if (!container.stats) continue;
        if (auto value = of(*container.stats)) family.add(*value, {{"container", container.name}});
    }
    return family;
}

std::function<std::optional<double>(const ContainerStats&)> field(
    std::optional<uint64_t> ContainerStats::*member, double scale = 1) {
    return [member, scale](const ContainerStats& stats) -> std::optional<double> {
        if (!(stats.*member)) return std::nullopt;
        return as_double(*(stats.*member)) * scale;
    };
}

void add_states(std::vector<prometheus::MetricFamily>& out, const ecs::TaskStatsReading& reading) {
    FamilyBuilder info = gauge("hostprobe_ecs_container_info",
                               "A container of the ECS task (from /task); always 1.");
    FamilyBuilder known = gauge("hostprobe_ecs_container_known_status",
                                "The container's KnownStatus (RUNNING, STOPPED, ...); always 1.");
    FamilyBuilder health = gauge("hostprobe_ecs_container_health_status",
                                 "The container's health check status; only with a check.");
    FamilyBuilder exit_code =
        gauge("hostprobe_ecs_container_exit_code", "The exit code of a stopped container.");
    FamilyBuilder restarts = counter("hostprobe_ecs_container_restarts_total",
                                     "Restarts of the container (only with a restart policy).");
    FamilyBuilder limit = gauge("hostprobe_ecs_container_memory_limit_bytes",
                                "The container's memory limit, else the task's (source says).");
    for (const ContainerReading& c : reading.containers) {
        info.add(1, {{"container", c.name}, {"image", c.image}, {"type", c.type}});
        if (!c.known_status.empty())
            known.add(1, {{"container", c.name}, {"status", c.known_status}});
        if (!c.health_status.empty())
            health.add(1, {{"container", c.name}, {"status", c.health_status}});
        if (c.exit_code) exit_code.add(static_cast<double>(*c.exit_code), {{"container", c.name}});
        if (c.restart_count) restarts.add(as_double(*c.restart_count), {{"container", c.name}});
        if (c.memory_limit_bytes)
            limit.add(as_double(*c.memory_limit_bytes),
                      {{"container", c.name}, {"source", c.memory_limit_source}});
    }
    for (auto* family : {&info, &known, &health, &exit_code, &restarts, &limit})
        append(out, std::move(*family));
}

void add_cpu_and_memory(std::vector<prometheus::MetricFamily>& out,
                        const ecs::TaskStatsSnapshot& snapshot) {
    const auto& reading = snapshot.reading;
    append(out, per_container(counter("hostprobe_ecs_container_cpu_seconds_total",
                                      "CPU time the container used (total_usage / 1e9)."),
                              reading, field(&ContainerStats::cpu_ns, 1e-9)));
    FamilyBuilder cores = gauge("hostprobe_ecs_container_cpu_cores",
                                "Cores the container used over the last interval of the stats.");
    for (size_t i = 0; i < reading.containers.size(); ++i) {
        const auto& rate = snapshot.usage.container_cpu_cores.size() > i
                               ? snapshot.usage.container_cpu_cores[i]
                               : std::nullopt;
        if (rate) cores.add(*rate, {{"container", reading.containers[i].name}});
    }
    append(out, std::move(cores));
    append(out, per_container(gauge("hostprobe_ecs_container_memory_usage_bytes",
                                    "The container's memory usage, page cache included."),
                              reading, field(&ContainerStats::memory_usage_bytes)));
    append(out,
           per_container(
               gauge("hostprobe_ecs_container_memory_working_set_bytes",
                     "Usage minus inactive file pages, as docker stats and cAdvisor count it."),
               reading, [](const ContainerStats& stats) -> std::optional<double> {
                   auto bytes = stats.memory_working_set_bytes();
                   return bytes ? std::optional(as_double(*bytes)) : std::nullopt;
               }));
    append(out, per_container(gauge("hostprobe_ecs_container_memory_cache_bytes",
                                    "The container's page cache (v1 total_cache, v2 file)."),
                              reading, field(&ContainerStats::memory_cache_bytes)));
    append(out, per_container(counter("hostprobe_ecs_container_memory_page_faults_total",
                                      "Page faults in the container."),
                              reading, field(&ContainerStats::page_faults)));
    append(out, per_container(counter("hostprobe_ecs_container_memory_major_page_faults_total",
                                      "Major page faults (read from disk) in the container."),
                              reading, field(&ContainerStats::major_page_faults)));
    append(out, per_container(counter("hostprobe_ecs_container_blkio_read_bytes_total",
                                      "Bytes the container read from block devices."),
                              reading, field(&ContainerStats::blkio_read_bytes)));
    append(out, per_container(counter("hostprobe_ecs_container_blkio_write_bytes_total",
                                      "Bytes the container wrote to block devices."),
                              reading, field(&ContainerStats::blkio_write_bytes)));
    append(out, per_container(gauge("hostprobe_ecs_container_pids",
                                    "Processes and threads in the container (not on Fargate)."),
                              reading, field(&ContainerStats::pids)));
}

void add_network(std::vector<prometheus::MetricFamily>& out, const ecs::TaskStatsReading& reading) {
    struct Column {
        const char* name;
        const char* help;
        uint64_t InterfaceCounters::*member;
    };
    static constexpr Column kColumns[] = {
        {"hostprobe_ecs_container_network_receive_bytes_total", "Bytes received.",
         &InterfaceCounters::receive_bytes},
        {"hostprobe_ecs_container_network_receive_packets_total", "Packets received.",
         &InterfaceCounters::receive_packets},
        {"hostprobe_ecs_container_network_receive_errors_total", "Receive errors.",
         &InterfaceCounters::receive_errors},
        {"hostprobe_ecs_container_network_receive_packets_dropped_total",
         "Received packets dropped.", &InterfaceCounters::receive_dropped},
        {"hostprobe_ecs_container_network_transmit_bytes_total", "Bytes sent.",
         &InterfaceCounters::transmit_bytes},
        {"hostprobe_ecs_container_network_transmit_packets_total", "Packets sent.",
         &InterfaceCounters::transmit_packets},
        {"hostprobe_ecs_container_network_transmit_errors_total", "Transmit errors.",
         &InterfaceCounters::transmit_errors},
        {"hostprobe_ecs_container_network_transmit_packets_dropped_total", "Sent packets dropped.",
         &InterfaceCounters::transmit_dropped},
    };
    for (const Column& column : kColumns) {
        FamilyBuilder family = counter(
            column.name, std::string(column.help) +
                             " Per container and interface (awsvpc: every container sees the "
                             "task's ENI).");
        for (const auto& container : reading.containers) {
            if (!container.stats) continue;
            for (const auto& interface : container.stats->interfaces)
                family.add(as_double(interface.*column.member),
                           {{"container", container.name}, {"interface", interface.name}});
        }
        append(out, std::move(family));
    }
}

void add_task(std::vector<prometheus::MetricFamily>& out, const ecs::TaskStatsSnapshot& snapshot) {
    FamilyBuilder cores =
        gauge("hostprobe_ecs_task_cpu_cores_used",
              "Cores the task's containers used together over the last interval.");
    if (snapshot.usage.cpu_cores) cores.add(*snapshot.usage.cpu_cores);
    append(out, std::move(cores));
    FamilyBuilder saturation = gauge(
        "hostprobe_ecs_task_cpu_saturation_ratio",
        "Share of the last minute in which the containers used at least 95% of the task's "
        "CPU limit (derived: ECS's throttling_data stays 0); absent without a task CPU limit.");
    if (snapshot.saturation.ratio) saturation.add(*snapshot.saturation.ratio);
    append(out, std::move(saturation));
    FamilyBuilder working_set = gauge("hostprobe_ecs_task_memory_working_set_bytes",
                                      "The running containers' memory working sets together.");
    if (auto sum = ecs::memory_working_set_bytes(snapshot.reading))
        working_set.add(as_double(*sum));
    append(out, std::move(working_set));
    append(out, gauge("hostprobe_ecs_task_stats_containers_dropped",
                      "Containers beyond the 20 hostprobe reports (0 on a real task).")
                    .add(static_cast<double>(snapshot.reading.containers_dropped)));
    append(out,
           gauge("hostprobe_ecs_task_stats_read_timestamp_seconds",
                 "When the task stats were last read well (Unix time).")
               .add(std::chrono::duration<double>(snapshot.read_at.time_since_epoch()).count()));
}

}  // namespace

std::vector<prometheus::MetricFamily> task_stats_families(const ecs::TaskStatsSnapshot& snapshot) {
    std::vector<prometheus::MetricFamily> out;
    if (snapshot.reads == 0) return out;  // nothing read well yet
    add_states(out, snapshot.reading);
    add_cpu_and_memory(out, snapshot);
    add_network(out, snapshot.reading);
    add_task(out, snapshot);
    return out;
}

TaskStatsCollector::TaskStatsCollector(const ecs::TaskStatsSource& source) : source_(source) {}

void TaskStatsCollector::render(std::string& out, std::vector<CollectorOutcome>& outcomes) const {
    const auto snapshot = source_.snapshot();
    if (!snapshot) return;  // outside ECS, or before the first read ended
    std::shared_ptr<const std::string> text;
    {
        std::lock_guard lock(mutex_);
        if (rendered_ != snapshot) {
            text_ = std::make_shared<const std::string>(to_text(task_stats_families(*snapshot)));
            rendered_ = snapshot;
        }
        text = text_;
    }
    out += *text;
    outcomes.push_back({"ecs_task_stats", !snapshot->error.has_value()});
}

}  // namespace hostprobe::metrics
