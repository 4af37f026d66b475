// ECS task metadata v4 (${ECS_CONTAINER_METADATA_URI_V4}/task and the container endpoint):
// which cluster, task and family we belong to, the task's limits normalized to cores and
// bytes, and the start timings seed 000 measured by hand.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.hpp"

namespace hostprobe::ecs {

// The limits ECS can set: one CPU unit (1/1024 core) up to more cores than any instance has,
// and up to a PiB. A document outside them is refused as damaged.
inline constexpr double kMinCpuLimitCores = 1.0 / 1024;
inline constexpr double kMaxCpuLimitCores = 4096;
inline constexpr double kMaxMemoryLimitMib = 1024.0 * 1024 * 1024;

struct TaskMetadata {
    std::string cluster;
    std::string task_arn;
    std::string family;
    std::string revision;
    std::string availability_zone;
    std::string launch_type;  // FARGATE, EC2, EXTERNAL, MANAGED_INSTANCES
    std::string container_name;
    std::optional<double>
        cpu_limit_cores;           // Fargate: task vCPUs; EC2: our container's CPU units / 1024
    std::string cpu_limit_source;  // "task" (a hard limit) or "container" (CPU shares on EC2)
    std::optional<uint64_t> memory_limit_bytes;
    std::optional<double> image_pull_seconds;       // PullStartedAt -> PullStoppedAt
    std::optional<double> container_start_seconds;  // our container's CreatedAt -> StartedAt
};

// `container` is the container endpoint's document (who we are); it may be null, and then the
// task's first container stands for us only when it is the only one.
Result<TaskMetadata> parse_task_metadata(const nlohmann::json& task,
                                         const nlohmann::json& container);

nlohmann::json to_json(const TaskMetadata& metadata);

// Fetches both documents (get_bounded_json: 2 s for a whole request), `attempts` tries with a
// short backoff.
// Errors say what failed (unreachable, HTTP status, malformed JSON, a document over 1 MiB or
// nested deeper than kMaxJsonDepth, a number out of range); none throws.
Result<TaskMetadata> fetch_task_metadata(const std::string& base_uri, int attempts = 3);

}  // namespace hostprobe::ecs
