#include "emf/task_groups.hpp"

namespace hostprobe::emf {

namespace {

double percent(double part, double whole) {
    return 100 * part / whole;
}

MetricGroup task_group(const ecs::TaskStatsSnapshot& snapshot) {
    const auto& reading = snapshot.reading;
    MetricGroup group;
    if (snapshot.usage.cpu_cores) {
        group.add("TaskCpuCoresUsed", Unit::none, *snapshot.usage.cpu_cores);
        if (reading.cpu_limit_cores)
            group.add("TaskCpuLimitUsed", Unit::percent,
                      percent(*snapshot.usage.cpu_cores, *reading.cpu_limit_cores));
    }
    if (snapshot.saturation.ratio)
        group.add("TaskCpuSaturation", Unit::percent, 100 * *snapshot.saturation.ratio);
    int running = 0, not_running = 0;
    for (const auto& container : reading.containers)
        ++(container.stats ? running : not_running);
    if (auto bytes = ecs::memory_working_set_bytes(reading)) {
        const auto working_set = static_cast<double>(*bytes);
        group.add("TaskMemoryWorkingSet", Unit::bytes, working_set);
        if (reading.memory_limit_bytes)
            group.add("TaskMemoryLimitUsed", Unit::percent,
                      percent(working_set, static_cast<double>(*reading.memory_limit_bytes)));
    }
    group.add("ContainersRunning", Unit::count, running);
    group.add("ContainersNotRunning", Unit::count, not_running);
    return group;
}

}  // namespace

std::vector<MetricGroup> task_stats_groups(const ecs::TaskStatsSnapshot& snapshot) {
    std::vector<MetricGroup> groups;
    if (snapshot.reads == 0) return groups;
    groups.push_back(task_group(snapshot));
    const auto& containers = snapshot.reading.containers;
    for (size_t i = 0; i < containers.size(); ++i) {
        const auto& container = containers[i];
        if (!container.stats) continue;
        MetricGroup group;
        group.dimensions = {{"Container", container.name}};
        if (i < snapshot.usage.container_cpu_cores.size() && snapshot.usage.container_cpu_cores[i])
            group.add("ContainerCpuCores", Unit::none, *snapshot.usage.container_cpu_cores[i]);
        if (auto bytes = container.stats->memory_working_set_bytes()) {
            group.add("ContainerMemoryWorkingSet", Unit::bytes, static_cast<double>(*bytes));
            if (container.memory_limit_bytes)
                group.add("ContainerMemoryLimitUsed", Unit::percent,
                          percent(static_cast<double>(*bytes),
                                  static_cast<double>(*container.memory_limit_bytes)));
        }
        if (container.restart_count)
            group.add("ContainerRestarts", Unit::count,
                      static_cast<double>(*container.restart_count));
        if (!group.metrics.empty()) groups.push_back(std::move(group));
    }
    return groups;
}

}  // namespace hostprobe::emf
