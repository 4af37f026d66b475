#include "ecs/task_stats.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/json_reads.hpp"
#include "core/time_format.hpp"

namespace hostprobe::ecs {

namespace {

using nlohmann::json;

// Warnings are bounded: a hostile document with a thousand bad counters says so once per kind
// of problem and container, up to the cap, and then that more were dropped.
class StatsWarnings {
  public:
    explicit StatsWarnings(std::vector<std::string>& out) : out_(out) {}
    void add(std::string text) {
        if (out_.size() < kMaxTaskStatsWarnings) {
            out_.push_back(std::move(text));
        } else if (!overflowed_) {
            overflowed_ = true;
            out_.back() = "more warnings were left out";
        }
    }

  private:
    std::vector<std::string>& out_;
    bool overflowed_ = false;
};

std::string text_of(const json& object, const char* key) {
    return string_member(object, key).value_or("");
}

// A counter: absent is no value and no warning; present but not a whole number in
// [0, 2^64) is no value and a warning naming it.
std::optional<uint64_t> counter(const json& object, const char* key, const std::string& where,
                                StatsWarnings& warnings) {
    const json* member = find_member(object, key);
    if (member == nullptr || member->is_null()) return std::nullopt;
    auto value = exact_integer<uint64_t>(*member);
    if (!value) warnings.add(where + ": " + key + " is not a whole number from 0 to 2^64");
    return value;
}

const json& member_or_empty(const json& object, const char* key) {
    static const json empty = json::object();
    const json* member = find_member(object, key);
    return member != nullptr && member->is_object() ? *member : empty;
}

// cgroup v1 documents carry the hierarchy's total_* counters beside the cgroup's own; v2's
// have one set. ecs_exporter and docker prefer total_* when present.
std::optional<uint64_t> memory_counter(const json& memory_stats, const char* v1_key,
                                       const char* v2_key, const std::string& where,
                                       StatsWarnings& warnings) {
    const json& stats = member_or_empty(memory_stats, "stats");
    if (find_member(stats, v1_key) != nullptr) return counter(stats, v1_key, where, warnings);
    return counter(stats, v2_key, where, warnings);
}

bool same_letters(const std::string& text, const char* word) {
    return std::equal(
        text.begin(), text.end(), word, word + std::char_traits<char>::length(word),
        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// docker's calculateBlockIO: the "read" and "write" entries of every device (v1 writes
// "Read", v2 "read"); Total, Sync and Async are sums of those and must not count again.
void read_blkio(const json& stats, ContainerStats& out, const std::string& where,
                StatsWarnings& warnings) {
    const json* entries =
        find_member(member_or_empty(stats, "blkio_stats"), "io_service_bytes_recursive");
    if (entries == nullptr || !entries->is_array()) return;
    uint64_t read = 0, write = 0;
    bool any = false, bad = false;
    for (const json& entry : *entries) {
        const std::string op = text_of(entry, "op");
        const bool is_read = same_letters(op, "read"), is_write = same_letters(op, "write");
        if (!is_read && !is_write) continue;
        const json* value = find_member(entry, "value");
        auto bytes = value != nullptr ? exact_integer<uint64_t>(*value) : std::nullopt;
        uint64_t& sum = is_read ? read : write;
        if (!bytes || sum > UINT64_MAX - *bytes) {
            bad = true;
            continue;
        }
        sum += *bytes;
        any = true;
    }
    if (bad) warnings.add(where + ": a block I/O byte count is not a whole number from 0 to 2^64");
    if (any && !bad) {
        out.blkio_read_bytes = read;
        out.blkio_write_bytes = write;
    }
}

void read_networks(const json& stats, ContainerStats& out, const std::string& where,
                   StatsWarnings& warnings) {
    const json* networks = find_member(stats, "networks");
    if (networks == nullptr || !networks->is_object()) return;
    for (const auto& item : networks->items()) {
        // Named, not bound: a lambda below uses them (clang 14 cannot capture a binding).
        const std::string& name = item.key();
        const json& counters = item.value();
        if (out.interfaces.size() == kMaxContainerInterfaces) {
            warnings.add(where + ": more than " + std::to_string(kMaxContainerInterfaces) +
                         " network interfaces; the rest were left out");
            break;
        }
        if (name.empty() || name.size() > 64 || !counters.is_object()) continue;
        InterfaceCounters interface { .name = name };
        const std::string here = where + " " + name;
        bool complete = true;
        auto take = [&](const char* key, uint64_t& into) {
            auto value = counter(counters, key, here, warnings);
            complete = complete && value.has_value();
            into = value.value_or(0);
        };
        take("rx_bytes", interface.receive_bytes);
        take("rx_packets", interface.receive_packets);
        take("rx_errors", interface.receive_errors);
        take("rx_dropped", interface.receive_dropped);
        take("tx_bytes", interface.transmit_bytes);
        take("tx_packets", interface.transmit_packets);
        take("tx_errors", interface.transmit_errors);
        take("tx_dropped", interface.transmit_dropped);
        if (complete) out.interfaces.push_back(std::move(interface));
    }
}

// Docker's first reading of a container has a zero `preread` and `precpu_stats`; Fargate 1.4
// sent zero precpu_stats always. Only a pair that makes sense is kept.
void read_previous(const json& stats, ContainerStats& out, const std::string& where,
                   StatsWarnings& warnings) {
    auto preread = parse_docker_time_ns(text_of(stats, "preread"));
    auto precpu = counter(member_or_empty(member_or_empty(stats, "precpu_stats"), "cpu_usage"),
                          "total_usage", where + " precpu_stats", warnings);
    if (preread && precpu && *preread < out.read_unix_ns && out.cpu_ns && *precpu > 0 &&
        *precpu <= *out.cpu_ns) {
        out.preread_unix_ns = preread;
        out.precpu_ns = precpu;
    }
}

std::optional<ContainerStats> read_container_stats(const json& stats, const std::string& where,
                                                   StatsWarnings& warnings) {
    if (!stats.is_object() || stats.empty()) return std::nullopt;  // stopped: null or {}
    auto read = parse_docker_time_ns(text_of(stats, "read"));
    if (!read) {
        warnings.add(where + ": the stats have no readable `read` time; left out");
        return std::nullopt;
    }
    ContainerStats out;
    out.read_unix_ns = *read;
    const json& cpu_stats = member_or_empty(stats, "cpu_stats");
    out.cpu_ns = counter(member_or_empty(cpu_stats, "cpu_usage"), "total_usage", where, warnings);
    out.throttled_periods = counter(member_or_empty(cpu_stats, "throttling_data"),
                                    "throttled_periods", where, warnings);
    read_previous(stats, out, where, warnings);
    const json& memory = member_or_empty(stats, "memory_stats");
    out.memory_usage_bytes = counter(memory, "usage", where, warnings);
    out.memory_max_usage_bytes = counter(memory, "max_usage", where, warnings);
    if (out.memory_max_usage_bytes == uint64_t{0}) out.memory_max_usage_bytes.reset();
    out.memory_inactive_file_bytes =
        memory_counter(memory, "total_inactive_file", "inactive_file", where, warnings);
    out.memory_cache_bytes = memory_counter(memory, "total_cache", "file", where, warnings);
    if (!out.memory_cache_bytes)
        out.memory_cache_bytes =
            counter(member_or_empty(memory, "stats"), "cache", where, warnings);
    out.page_faults = memory_counter(memory, "total_pgfault", "pgfault", where, warnings);
    out.major_page_faults =
        memory_counter(memory, "total_pgmajfault", "pgmajfault", where, warnings);
    out.pids = counter(member_or_empty(stats, "pids_stats"), "current", where, warnings);
    read_blkio(stats, out, where, warnings);
    read_networks(stats, out, where, warnings);
    return out;
}

std::optional<uint64_t> mebibytes(const json& limits, const char* key) {
    auto value = number_member(limits, key);
    // 1 MiB to 1 PiB, as task_metadata accepts: anything else is no limit.
    if (!value || *value < 1 || *value > 1024.0 * 1024 * 1024) return std::nullopt;
    return static_cast<uint64_t>(*value) * 1024 * 1024;
}

// Text fit for a label and a line of a report: printable ASCII, at most 255 bytes (ECS names
// are letters, digits, hyphens and underscores; images and states are ASCII too).
std::string clean_text(std::string text) {
    if (text.size() > 255) text.resize(255);
    for (char& c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
    }
    return text;
}

// Docker's container names start with "/".
std::string clean_name(std::string name) {
    if (!name.empty() && name.front() == '/') name.erase(0, 1);
    return clean_text(std::move(name));
}

ContainerReading from_task_entry(const json& entry, const TaskStatsReading& task) {
    ContainerReading out;
    out.name = clean_name(text_of(entry, "Name"));
    out.docker_id = text_of(entry, "DockerId");  // only matched, never shown
    out.image = clean_text(text_of(entry, "Image"));
    out.type = clean_text(text_of(entry, "Type"));
    out.known_status = clean_text(text_of(entry, "KnownStatus"));
    out.health_status = clean_text(text_of(member_or_empty(entry, "Health"), "status"));
    if (const json* code = find_member(entry, "ExitCode"); code != nullptr)
        out.exit_code = exact_integer<int64_t>(*code);
    if (const json* restarts = find_member(entry, "RestartCount"); restarts != nullptr)
        out.restart_count = exact_integer<uint64_t>(*restarts);
    if (auto own = mebibytes(member_or_empty(entry, "Limits"), "Memory")) {
        out.memory_limit_bytes = own;
        out.memory_limit_source = "container";
    } else if (task.memory_limit_bytes) {
        out.memory_limit_bytes = task.memory_limit_bytes;
        out.memory_limit_source = "task";
    }
    return out;
}

bool add_container(TaskStatsReading& reading, ContainerReading container,
                   std::set<std::string>& names, StatsWarnings& warnings) {
    if (container.name.empty() || !names.insert(container.name).second) {
        warnings.add("a container without a name, or with a name already seen, was left out");
        return false;
    }
    if (reading.containers.size() == kMaxTaskContainers) {
        ++reading.containers_dropped;
        return false;
    }
    reading.containers.push_back(std::move(container));
    return true;
}

}  // namespace

std::optional<uint64_t> ContainerStats::memory_working_set_bytes() const {
    if (!memory_usage_bytes) return std::nullopt;
    const uint64_t inactive = memory_inactive_file_bytes.value_or(0);
    return inactive < *memory_usage_bytes ? *memory_usage_bytes - inactive : *memory_usage_bytes;
}

std::optional<uint64_t> memory_working_set_bytes(const TaskStatsReading& reading) {
    std::optional<uint64_t> sum;
    for (const auto& container : reading.containers) {
        if (!container.stats) continue;
        if (auto bytes = container.stats->memory_working_set_bytes())
            sum = sum.value_or(0) + *bytes;
    }
    return sum;
}

std::optional<int64_t> parse_docker_time_ns(const std::string& text) {
    // "YYYY-MM-DDTHH:MM:SS[.fraction]Z": the whole seconds through parse_rfc3339, the fraction
    // here (a double of seconds since 1970 keeps only about 0.2 microseconds).
    if (text.size() < 20 || text.size() > 40 || text.back() != 'Z') return std::nullopt;
    std::string whole = text.substr(0, 19) + "Z";
    int64_t fraction_ns = 0;
    if (text.size() > 20) {
        if (text[19] != '.') return std::nullopt;
        const std::string digits = text.substr(20, text.size() - 21);
        if (digits.empty() || digits.size() > 9 ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        fraction_ns = std::stoll(digits + std::string(9 - digits.size(), '0'));
    }
    auto seconds = parse_rfc3339(whole);
    // 2000-01-01: earlier is Docker's "never" (Go's zero time), later than 2^62 ns is nonsense.
    if (!seconds || *seconds < 946684800.0 || *seconds > 4.0e9) return std::nullopt;
    return static_cast<int64_t>(*seconds) * 1'000'000'000 + fraction_ns;
}

Result<TaskStatsReading> parse_task_stats(const json& task, const json& stats) {
    const json* containers = find_member(task, "Containers");
    if (containers == nullptr || !containers->is_array())
        return make_error(ErrorCode::parse_error, "the task metadata has no Containers list");
    if (!stats.is_object())
        return make_error(ErrorCode::parse_error, "the task stats are not a JSON object");
    TaskStatsReading reading;
    StatsWarnings warnings(reading.warnings);
    const json& limits = member_or_empty(task, "Limits");
    if (auto cpu = number_member(limits, "CPU"); cpu && *cpu >= 1.0 / 1024 && *cpu <= 4096)
        reading.cpu_limit_cores = *cpu;  // vCPUs; 0 (managed instances) or absent: no limit
    reading.memory_limit_bytes = mebibytes(limits, "Memory");

    std::set<std::string> names, joined_ids;
    for (const json& entry : *containers) {
        if (!entry.is_object()) continue;
        ContainerReading container = from_task_entry(entry, reading);
        if (const json* found = find_member(stats, container.docker_id);
            found != nullptr && !container.docker_id.empty()) {
            joined_ids.insert(container.docker_id);
            container.stats = read_container_stats(*found, container.name, warnings);
        }
        add_container(reading, std::move(container), names, warnings);
    }
    // Stats of containers /task does not list (the AWS documentation's sample pairs two
    // different tasks): named by their stats name, status unknown.
    for (const auto& [id, entry] : stats.items()) {
        if (joined_ids.contains(id) || !entry.is_object() || entry.empty()) continue;
        ContainerReading container;
        container.name = clean_name(text_of(entry, "name"));
        container.docker_id = clean_text(id);
        container.stats = read_container_stats(entry, container.name, warnings);
        if (reading.memory_limit_bytes) {
            container.memory_limit_bytes = reading.memory_limit_bytes;
            container.memory_limit_source = "task";
        }
        add_container(reading, std::move(container), names, warnings);
    }
    if (reading.containers_dropped > 0) {
        warnings.add(std::to_string(reading.containers_dropped) + " containers beyond the first " +
                     std::to_string(kMaxTaskContainers) + " were left out");
    }
    return reading;
}

}  // namespace hostprobe::ecs
