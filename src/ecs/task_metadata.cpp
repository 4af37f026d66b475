#include "ecs/task_metadata.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <thread>

#include "core/json_reads.hpp"
#include "core/strings.hpp"
#include "core/time_format.hpp"
#include "ecs/bounded_get.hpp"
#include "http/url.hpp"

namespace hostprobe::ecs {

namespace {

using nlohmann::json;

std::string text_field(const json& document, const char* key) {
    return string_member(document, key).value_or("");
}

std::optional<double> number_field(const json& document, const char* key) {
    return number_member(document, key);
}

std::optional<double> span(const json& document, const char* from, const char* to) {
    auto start = parse_rfc3339(text_field(document, from));
    auto end = parse_rfc3339(text_field(document, to));
    if (!start || !end || *end < *start) return std::nullopt;
    return *end - *start;
}

// The limits of the task, or of our container.
const json& limits_of(const json& document) {
    static const json none = json::object();
    const json* limits = find_member(document, "Limits");
    return limits != nullptr ? *limits : none;
}

// A limit ECS could have set: a larger or smaller one is a damaged document, and converting it
// (to a CFS quota in microseconds, to bytes) would overflow.
Status check_limit(const char* what, double value, double low, double high) {
    if (value >= low && value <= high) return Ok{};
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", value);
    return make_error(ErrorCode::parse_error, std::string("the task metadata's ") + what + " is " +
                                                  text + ", not a value ECS sets");
}

const json* find_our_container(const json& task, const json& container) {
    auto containers = task.find("Containers");
    if (containers == task.end() || !containers->is_array()) return nullptr;
    const std::string id = container.is_object() ? text_field(container, "DockerId") : "";
    for (const auto& candidate : *containers) {
        if (!id.empty() && candidate.is_object() && text_field(candidate, "DockerId") == id)
            return &candidate;
    }
    if (containers->size() == 1 && (*containers)[0].is_object()) return &(*containers)[0];
    return container.is_object() ? &container : nullptr;
}

}  // namespace

Result<TaskMetadata> parse_task_metadata(const json& task, const json& container) {
    if (!task.is_object() || text_field(task, "TaskARN").empty()) {
        return make_error(ErrorCode::parse_error, "the task metadata has no TaskARN");
    }
    TaskMetadata metadata;
    metadata.cluster = text_field(task, "Cluster");
    metadata.task_arn = text_field(task, "TaskARN");
    metadata.family = text_field(task, "Family");
    metadata.revision = text_field(task, "Revision");
    metadata.availability_zone = text_field(task, "AvailabilityZone");
    metadata.launch_type = text_field(task, "LaunchType");
    metadata.image_pull_seconds = span(task, "PullStartedAt", "PullStoppedAt");
    const json* ours = find_our_container(task, container);
    if (ours != nullptr) {
        metadata.container_name = text_field(*ours, "Name");
        metadata.container_start_seconds = span(*ours, "CreatedAt", "StartedAt");
    }
    // Fargate gives task limits in vCPUs (a float) and MiB; EC2 often has none, and then our
    // container's limits in CPU units (1024 per core) and MiB stand in.
    const json& task_limits = limits_of(task);
    const json& our_limits = ours != nullptr ? limits_of(*ours) : limits_of(json());
    if (auto cpu = number_field(task_limits, "CPU"); cpu && *cpu > 0) {
        metadata.cpu_limit_cores = *cpu;
        metadata.cpu_limit_source = "task";
    } else if (auto units = number_field(our_limits, "CPU"); units && *units > 0) {
        metadata.cpu_limit_cores = *units / 1024;
        metadata.cpu_limit_source = "container";
    }
    if (metadata.cpu_limit_cores) {
        if (auto checked = check_limit("CPU limit (cores)", *metadata.cpu_limit_cores,
                                       kMinCpuLimitCores, kMaxCpuLimitCores);
            !checked)
            return checked.error();
    }
    auto memory = number_field(task_limits, "Memory");
    if (!memory || *memory <= 0) memory = number_field(our_limits, "Memory");
    if (memory && *memory > 0) {
        if (auto checked = check_limit("memory limit (MiB)", *memory, 1, kMaxMemoryLimitMib);
            !checked)
            return checked.error();
        metadata.memory_limit_bytes = static_cast<uint64_t>(*memory) * 1024 * 1024;
    }
    return metadata;
}

json to_json(const TaskMetadata& m) {
    auto optional = [](const auto& value) { return value ? json(*value) : json(nullptr); };
    return {
        {"cluster", m.cluster},
        {"task_arn", m.task_arn},
        {"family", m.family},
        {"revision", m.revision},
        {"availability_zone", m.availability_zone},
        {"launch_type", m.launch_type},
        {"container_name", m.container_name.empty() ? json(nullptr) : json(m.container_name)},
        {"cpu_limit_cores", optional(m.cpu_limit_cores)},
        {"cpu_limit_source", m.cpu_limit_source.empty() ? json(nullptr) : json(m.cpu_limit_source)},
        {"memory_limit_bytes", optional(m.memory_limit_bytes)},
        {"image_pull_seconds", optional(m.image_pull_seconds)},
        {"container_start_seconds", optional(m.container_start_seconds)}};
}

Result<TaskMetadata> fetch_task_metadata(const std::string& base_uri, int attempts) {
    auto base = http::parse_http_url(base_uri);
    if (!base)
        return make_error(ErrorCode::invalid_argument,
                          "ECS_CONTAINER_METADATA_URI_V4: " + base.error().message);
    const http::HttpUrl task_url = with_path_suffix(*base, "/task");
    Error last = make_error(ErrorCode::unavailable, "not tried");
    for (int attempt = 0; attempt < attempts; ++attempt) {
        if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
        auto task = get_bounded_json(task_url);
        if (!task) {
            last = task.error();
            continue;
        }
        auto container = get_bounded_json(*base);  // who we are; optional
        auto parsed = parse_task_metadata(*task, container ? *container : json(nullptr));
        if (parsed || parsed.error().code != ErrorCode::parse_error) return parsed;
        last = parsed.error();
    }
    return last;
}

}  // namespace hostprobe::ecs
