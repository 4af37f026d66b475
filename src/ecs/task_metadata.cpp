#include "ecs/task_metadata.hpp"

#include <httplib.h>

#include <cmath>
#include <ctime>
#include <thread>

#include "core/strings.hpp"
#include "core/time_format.hpp"
#include "http/url.hpp"

namespace hostprobe::ecs {

namespace {

using nlohmann::json;

std::string text_field(const json& document, const char* key) {
    auto it = document.find(key);
    return it != document.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number_field(const json& document, const char* key) {
    auto it = document.find(key);
    if (it == document.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::optional<double> span(const json& document, const char* from, const char* to) {
    auto start = parse_rfc3339(text_field(document, from));
    auto end = parse_rfc3339(text_field(document, to));
    if (!start || !end || *end < *start) return std::nullopt;
    return *end - *start;
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

Result<json> get_json(const http::HttpUrl& url) {
    httplib::Client client(url.origin());
    client.set_connection_timeout(1, 0);
    client.set_read_timeout(1, 0);
    client.set_write_timeout(1, 0);
    auto response = client.Get(url.path);
    if (!response) {
        return make_error(ErrorCode::unavailable,
                          url.path + ": " + httplib::to_string(response.error()));
    }
    if (response->status != 200) {
        return make_error(ErrorCode::unavailable,
                          url.path + ": HTTP " + std::to_string(response->status));
    }
    try {
        return json::parse(response->body);
    } catch (const json::parse_error& error) {
        return make_error(ErrorCode::parse_error, url.path + ": malformed JSON: " + error.what());
    }
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
    const json limits = task.value("Limits", json::object());
    if (auto cpu = number_field(limits, "CPU"); cpu && *cpu > 0) {
        metadata.cpu_limit_cores = *cpu;
        metadata.cpu_limit_source = "task";
    } else if (ours != nullptr) {
        if (auto units = number_field(ours->value("Limits", json::object()), "CPU");
            units && *units > 0) {
            metadata.cpu_limit_cores = *units / 1024;
            metadata.cpu_limit_source = "container";
        }
    }
    auto memory = number_field(limits, "Memory");
    if ((!memory || *memory <= 0) && ours != nullptr)
        memory = number_field(ours->value("Limits", json::object()), "Memory");
    if (memory && *memory > 0)
        metadata.memory_limit_bytes = static_cast<uint64_t>(*memory) * 1024 * 1024;
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
    http::HttpUrl task_url = *base;
    task_url.path = (base->path == "/" ? std::string() : base->path) + "/task";
    Error last = make_error(ErrorCode::unavailable, "not tried");
    for (int attempt = 0; attempt < attempts; ++attempt) {
        if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
        auto task = get_json(task_url);
        if (!task) {
            last = task.error();
            continue;
        }
        auto container = get_json(*base);  // who we are; optional
        auto parsed = parse_task_metadata(*task, container ? *container : json(nullptr));
        if (parsed || parsed.error().code != ErrorCode::parse_error) return parsed;
        last = parsed.error();
    }
    return last;
}

}  // namespace hostprobe::ecs
