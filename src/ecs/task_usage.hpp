// What the task's containers used between two readings of /task/stats, and how much of the last
// minute the task spent at its CPU limit. ECS's own `throttling_data` stays 0 on Fargate and
// EC2 even when a task is throttled (aws/containers-roadmap#2766), so saturation is derived:
// an interval counts as saturated when the containers together used at least 95% of the
// task's Limits.CPU. Pure: times come from the stats' own `read` stamps.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "ecs/task_stats.hpp"

namespace hostprobe::ecs {

inline constexpr double kSaturatedShareOfLimit = 0.95;
inline constexpr int64_t kSaturationWindowNs = 60'000'000'000;
inline constexpr double kMemoryNearLimitShare = 0.90;

struct TaskUsage {
    // Parallel to the reading's containers: cores used over the container's last interval
    // (none for a stopped container, a first reading without a sane precpu, or a counter
    // that went back: a restart is not a negative rate).
    std::vector<std::optional<double>> container_cpu_cores;
    std::optional<double> cpu_cores;  // the sum over the containers with a rate
    int64_t interval_start_ns = 0;    // the span those rates cover (0 when none)
    int64_t interval_end_ns = 0;
};

// `previous` is the reader's own last reading (null for the first): rates come from it when the
// same container (name and DockerId) was read before, else from the stats' precpu/preread.
TaskUsage task_usage(const TaskStatsReading& current, const TaskStatsReading* previous);

// The intervals of the last minute, each saturated or not; bounded to the window.
class SaturationWindow {
  public:
    struct Share {
        double saturated_seconds = 0;
        double covered_seconds = 0;   // how much of the window readings cover
        std::optional<double> ratio;  // saturated / covered; none without a limit or readings
    };

    // An interval is added only with a task CPU limit; overlap with the last one is cut off.
    void add(const TaskUsage& usage, std::optional<double> cpu_limit_cores);
    Share share(int64_t now_ns) const;  // over [now - 60 s, now]

  private:
    struct Interval {
        int64_t start_ns;
        int64_t end_ns;
        bool saturated;
    };
    std::deque<Interval> intervals_;
};

// "app: memory working set 470.1 MiB is 92% of its 512 MiB limit", for each running container
// past kMemoryNearLimitShare.
std::vector<std::string> memory_near_limit_warnings(const TaskStatsReading& reading);

}  // namespace hostprobe::ecs
