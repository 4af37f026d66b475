// One reading of the ECS task metadata endpoint's `/task/stats` (every container's Docker stats,
// keyed by DockerId) joined with `/task` (names, images, states, limits): what each container of
// the task uses, as ecs_exporter and `docker stats` count it. Pure: no I/O, no clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::ecs {

// A task holds at most 10 containers on ECS (plus its pause container); more is a damaged
// document or a hostile one, and every container is a label value on /metrics.
inline constexpr size_t kMaxTaskContainers = 20;
inline constexpr size_t kMaxContainerInterfaces = 8;
inline constexpr size_t kMaxTaskStatsWarnings = 16;

struct InterfaceCounters {
    std::string name;  // eth1 (awsvpc: the task's ENI, the same for every container)
    uint64_t receive_bytes = 0, receive_packets = 0, receive_errors = 0, receive_dropped = 0;
    uint64_t transmit_bytes = 0, transmit_packets = 0, transmit_errors = 0, transmit_dropped = 0;
};

// A running container's Docker stats. Every counter is optional: a value that is missing, not
// a whole number, negative or beyond 2^64 is left out (with a warning), never wrapped.
struct ContainerStats {
    int64_t read_unix_ns = 0;                // when the stats were read (`read`)
    std::optional<int64_t> preread_unix_ns;  // the stats' own previous reading, when sane
    std::optional<uint64_t> cpu_ns;          // cpu_stats.cpu_usage.total_usage
    std::optional<uint64_t> precpu_ns;       // precpu_stats', when sane
    std::optional<uint64_t> memory_usage_bytes;
    std::optional<uint64_t> memory_max_usage_bytes;      // cgroup v1 only
    std::optional<uint64_t> memory_inactive_file_bytes;  // v1 total_inactive_file, v2 inactive_file
    std::optional<uint64_t> memory_cache_bytes;          // v1 total_cache, v2 file
    std::optional<uint64_t> page_faults;
    std::optional<uint64_t> major_page_faults;
    std::optional<uint64_t> blkio_read_bytes;  // io_service_bytes_recursive "read", all devices
    std::optional<uint64_t> blkio_write_bytes;
    std::optional<uint64_t> pids;               // pids_stats.current (Fargate leaves it out)
    std::optional<uint64_t> throttled_periods;  // throttling_data: always 0 on ECS (see README)
    std::vector<InterfaceCounters> interfaces;  // at most kMaxContainerInterfaces, by name

    // usage minus inactive file pages, as `docker stats` and cAdvisor count the working set
    // (usage when inactive_file is missing or larger).
    std::optional<uint64_t> memory_working_set_bytes() const;
};

struct ContainerReading {
    std::string name;  // /task Name (a stats entry /task lacks: its stats name without "/")
    std::string docker_id;
    std::string image;
    std::string type;                       // NORMAL, CNI_PAUSE, ...
    std::string known_status;               // RUNNING, STOPPED, ...
    std::string health_status;              // HEALTHY, UNHEALTHY, UNKNOWN; empty without a check
    std::optional<int64_t> exit_code;       // once stopped
    std::optional<uint64_t> restart_count;  // only with a restart policy
    std::optional<uint64_t> memory_limit_bytes;  // the container's limit, else the task's
    std::string memory_limit_source;             // "container" or "task"
    std::optional<ContainerStats> stats;  // none: stopped (null on Fargate, {} on EC2) or absent
};

struct TaskStatsReading {
    std::optional<double> cpu_limit_cores;       // the task's Limits.CPU (vCPUs), when set
    std::optional<uint64_t> memory_limit_bytes;  // the task's Limits.Memory
    std::vector<ContainerReading> containers;    // /task's order, then stats-only entries
    size_t containers_dropped = 0;               // beyond kMaxTaskContainers
    std::vector<std::string> warnings;           // at most kMaxTaskStatsWarnings
};

// The running containers' working sets together; none when no container reports one.
std::optional<uint64_t> memory_working_set_bytes(const TaskStatsReading& reading);

// `task` is GET /task, `stats` GET /task/stats. A document that is not an object, or a task
// without Containers, is an Error (parse_error); anything smaller is a warning.
Result<TaskStatsReading> parse_task_stats(const nlohmann::json& task, const nlohmann::json& stats);

// Nanoseconds since the epoch from Docker's RFC 3339 times ("2025-02-27T05:22:49.186680233Z");
// none for Go's zero time (year 1) or anything before 2000, which Docker sends for "never".
std::optional<int64_t> parse_docker_time_ns(const std::string& text);

}  // namespace hostprobe::ecs
