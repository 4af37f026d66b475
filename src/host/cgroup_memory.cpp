#include "host/cgroup_memory.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace hostprobe::host {

const std::vector<std::string>& reported_memory_events() {
    static const std::vector<std::string> events = {"low", "high",     "max",
                                                    "oom", "oom_kill", "oom_group_kill"};
    return events;
}

Result<uint64_t> parse_memory_usage(std::string_view text) {
    auto bytes = parse_uint64(trim(text));
    if (!bytes) return make_error(ErrorCode::parse_error, "memory usage: " + bytes.error().message);
    return bytes;
}

Result<MemoryEvents> parse_memory_events(std::string_view text) {
    MemoryEvents events;
    const auto& reported = reported_memory_events();
    for (std::string_view line : split_lines(text)) {
        const auto fields = split_whitespace(line);
        if (fields.empty()) continue;
        if (fields.size() != 2) {
            return make_error(
                ErrorCode::parse_error,
                "memory.events: line '" + std::string(trim(line)) + "' is not '<event> <count>'");
        }
        auto count = parse_uint64(fields[1]);
        if (!count) {
            return make_error(ErrorCode::parse_error, "memory.events " + std::string(fields[0]) +
                                                          ": " + count.error().message);
        }
        if (std::find(reported.begin(), reported.end(), fields[0]) == reported.end()) continue;
        const bool repeated = std::any_of(events.begin(), events.end(), [&](const auto& event) {
            return event.first == fields[0];
        });
        if (repeated) {
            return make_error(ErrorCode::parse_error,
                              "memory.events names " + std::string(fields[0]) + " twice");
        }
        events.emplace_back(std::string(fields[0]), *count);
    }
    return events;
}

Result<uint64_t> read_cgroup_memory_usage(const SysRoot& root, const CgroupSource& source) {
    const std::string path =
        source.cgroup_dir + (source.version == 1 ? "/memory.usage_in_bytes" : "/memory.current");
    auto text = root.read_file(path);
    if (!text) return text.error();
    auto bytes = parse_memory_usage(*text);
    if (!bytes) return make_error(bytes.error().code, path + ": " + bytes.error().message);
    return bytes;
}

Result<MemoryEvents> read_cgroup_memory_events(const SysRoot& root, const CgroupSource& source) {
    if (source.version != 2) {
        return make_error(ErrorCode::unavailable, "memory.events exists only in cgroup v2");
    }
    const std::string path = source.cgroup_dir + "/memory.events";
    auto text = root.read_file(path);
    if (!text) return text.error();
    auto events = parse_memory_events(*text);
    if (!events) return make_error(events.error().code, path + ": " + events.error().message);
    return events;
}

}  // namespace hostprobe::host
