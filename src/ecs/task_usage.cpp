#include "ecs/task_usage.hpp"

#include <algorithm>
#include <cstdio>

namespace hostprobe::ecs {

namespace {

const ContainerReading* same_container(const TaskStatsReading* previous,
                                       const ContainerReading& current) {
    if (previous == nullptr) return nullptr;
    for (const auto& candidate : previous->containers) {
        if (candidate.name == current.name && candidate.docker_id == current.docker_id)
            return &candidate;
    }
    return nullptr;
}

struct Rate {
    double cores;
    int64_t start_ns;
    int64_t end_ns;
};

std::optional<Rate> rate_between(std::optional<uint64_t> from_ns_used, int64_t from_read_ns,
                                 std::optional<uint64_t> to_ns_used, int64_t to_read_ns) {
    if (!from_ns_used || !to_ns_used || *to_ns_used < *from_ns_used || to_read_ns <= from_read_ns)
        return std::nullopt;
    const double used = static_cast<double>(*to_ns_used - *from_ns_used);
    return Rate{used / static_cast<double>(to_read_ns - from_read_ns), from_read_ns, to_read_ns};
}

std::optional<Rate> container_rate(const ContainerReading& current,
                                   const ContainerReading* before) {
    if (!current.stats) return std::nullopt;
    const ContainerStats& now = *current.stats;
    if (before != nullptr && before->stats) {
        if (auto rate = rate_between(before->stats->cpu_ns, before->stats->read_unix_ns, now.cpu_ns,
                                     now.read_unix_ns))
            return rate;
    }
    if (now.preread_unix_ns)
        return rate_between(now.precpu_ns, *now.preread_unix_ns, now.cpu_ns, now.read_unix_ns);
    return std::nullopt;
}

std::string mebibytes_text(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024));
    return text;
}

}  // namespace

TaskUsage task_usage(const TaskStatsReading& current, const TaskStatsReading* previous) {
    TaskUsage usage;
    for (const auto& container : current.containers) {
        auto rate = container_rate(container, same_container(previous, container));
        usage.container_cpu_cores.push_back(rate ? std::optional(rate->cores) : std::nullopt);
        if (!rate) continue;
        usage.cpu_cores = usage.cpu_cores.value_or(0) + rate->cores;
        usage.interval_start_ns = usage.interval_start_ns == 0
                                      ? rate->start_ns
                                      : std::min(usage.interval_start_ns, rate->start_ns);
        usage.interval_end_ns = std::max(usage.interval_end_ns, rate->end_ns);
    }
    return usage;
}

void SaturationWindow::add(const TaskUsage& usage, std::optional<double> cpu_limit_cores) {
    if (!usage.cpu_cores || !cpu_limit_cores || usage.interval_end_ns <= usage.interval_start_ns)
        return;
    int64_t start = usage.interval_start_ns;
    if (!intervals_.empty()) {
        if (usage.interval_end_ns <= intervals_.back().end_ns) return;  // nothing new
        start = std::max(start, intervals_.back().end_ns);
    }
    intervals_.push_back(Interval{start, usage.interval_end_ns,
                                  *usage.cpu_cores >= kSaturatedShareOfLimit * *cpu_limit_cores});
    const int64_t oldest_kept = usage.interval_end_ns - kSaturationWindowNs;
    while (!intervals_.empty() && intervals_.front().end_ns <= oldest_kept)
        intervals_.pop_front();
}

SaturationWindow::Share SaturationWindow::share(int64_t now_ns) const {
    Share share;
    const int64_t window_start = now_ns - kSaturationWindowNs;
    for (const auto& interval : intervals_) {
        const int64_t start = std::max(interval.start_ns, window_start);
        const int64_t end = std::min(interval.end_ns, now_ns);
        if (end <= start) continue;
        const double seconds = static_cast<double>(end - start) / 1e9;
        share.covered_seconds += seconds;
        if (interval.saturated) share.saturated_seconds += seconds;
    }
    if (share.covered_seconds > 0) share.ratio = share.saturated_seconds / share.covered_seconds;
    return share;
}

std::vector<std::string> memory_near_limit_warnings(const TaskStatsReading& reading) {
    std::vector<std::string> warnings;
    for (const auto& container : reading.containers) {
        if (!container.stats || !container.memory_limit_bytes) continue;
        auto working_set = container.stats->memory_working_set_bytes();
        if (!working_set) continue;
        const double share =
            static_cast<double>(*working_set) / static_cast<double>(*container.memory_limit_bytes);
        if (share <= kMemoryNearLimitShare) continue;
        char percent[16];
        std::snprintf(percent, sizeof percent, "%.0f%%", share * 100);
        warnings.push_back(container.name + ": memory working set " + mebibytes_text(*working_set) +
                           " is " + percent + " of its " +
                           mebibytes_text(*container.memory_limit_bytes) + " limit (" +
                           container.memory_limit_source + ")");
    }
    return warnings;
}

}  // namespace hostprobe::ecs
