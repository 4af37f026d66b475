#include "host/cgroup.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

#include "core/strings.hpp"
#include "host/mountinfo.hpp"
#include "host/proc_cgroup.hpp"

namespace hostprobe::host {

namespace {

// Limits at or above this are the kernel's "unlimited" (LONG_MAX rounded to a page).
constexpr uint64_t kUnlimitedMemory = 1ULL << 62;

struct Location {
    int version = 0;
    std::string cgroup_path;
    std::string dir;
    std::string mount_point;
};

std::string join_path(const std::string& base, std::string_view relative) {
    if (relative.empty() || relative == "/") return base;
    if (base == "/") return std::string(relative);
    return base + std::string(relative);
}

std::string parent_dir(const std::string& dir) {
    size_t slash = dir.find_last_of('/');
    if (slash == std::string::npos || slash == 0) return "/";
    return dir.substr(0, slash);
}

// Maps a cgroup path to a directory below the mount; empty when the path is not under the
// mounted root (for example a cgroup namespace whose root we cannot see).
std::optional<std::string> translate(const std::string& path, const MountInfoEntry& mount) {
    if (mount.root == "/") return join_path(mount.mount_point, path);
    if (path == mount.root) return mount.mount_point;
    if (path.rfind(mount.root + "/", 0) == 0) {
        return join_path(mount.mount_point, std::string_view(path).substr(mount.root.size()));
    }
    return std::nullopt;
}

bool root_is_prefix(const MountInfoEntry& mount, const std::string& path) {
    return mount.root == "/" || path == mount.root || path.rfind(mount.root + "/", 0) == 0;
}

bool v2_offers_controller(const SysRoot& root, const MountInfoEntry& mount,
                          std::string_view controller) {
    auto listed = root.read_line(mount.mount_point + "/cgroup.controllers");
    if (!listed) return true;  // a dump without the file: assume it is there
    for (std::string_view name : split_whitespace(*listed)) {
        if (name == controller) return true;
    }
    return false;
}

std::optional<Location> place(const SysRoot& root, int version, const ProcCgroupEntry& entry,
                              const MountInfoEntry& mount, std::vector<std::string>& warnings) {
    Location location{version, entry.path, mount.mount_point, mount.mount_point};
    if (auto dir = translate(entry.path, mount)) {
        if (root.is_directory(*dir)) {
            location.dir = *dir;
            return location;
        }
        warnings.push_back("cgroup directory " + *dir + " does not exist; using " +
                           mount.mount_point);
        return location;
    }
    warnings.push_back("cgroup path " + entry.path + " lies outside the mounted root " +
                       mount.root + "; using " + mount.mount_point);
    return location;
}

std::optional<Location> locate(const SysRoot& root, const MountInfo& mounts,
                               const ProcCgroup& cgroups, std::string_view controller,
                               std::vector<std::string>& warnings) {
    for (const auto& entry : cgroups.entries) {
        if (!entry.has_controller(controller)) continue;
        for (const auto& mount : mounts.entries) {
            if (mount.fs_type == "cgroup" && mount.has_super_option(controller)) {
                return place(root, 1, entry, mount, warnings);
            }
        }
    }
    for (const auto& entry : cgroups.entries) {
        if (!entry.is_unified()) continue;
        const MountInfoEntry* chosen = nullptr;
        for (const auto& mount : mounts.entries) {
            if (mount.fs_type != "cgroup2") continue;
            if (chosen == nullptr ||
                (!root_is_prefix(*chosen, entry.path) && root_is_prefix(mount, entry.path))) {
                chosen = &mount;
            }
        }
        if (chosen != nullptr && v2_offers_controller(root, *chosen, controller)) {
            return place(root, 2, entry, *chosen, warnings);
        }
    }
    return std::nullopt;
}

// Visits our cgroup directory, then each ancestor up to the mount point.
void walk_up(const Location& location, const std::function<void(const std::string&)>& visit) {
    std::string dir = location.dir;
    while (true) {
        visit(dir);
        if (dir == location.mount_point || dir.size() <= location.mount_point.size() ||
            dir == "/") {
            return;
        }
        dir = parent_dir(dir);
    }
}

Result<QuotaSetting> read_quota_at(const SysRoot& root, int version, const std::string& dir) {
    if (version == 1) {
        auto quota = root.read_file(dir + "/cpu.cfs_quota_us");
        if (!quota) return quota.error();
        auto period = root.read_file(dir + "/cpu.cfs_period_us");
        if (!period) return period.error();
        return parse_cfs_quota(*quota, *period);
    }
    auto max = root.read_file(dir + "/cpu.max");
    if (!max) return max.error();
    return parse_cpu_max(*max);
}

void read_cpu_limits(const SysRoot& root, const Location& location, CgroupFacts& facts) {
    facts.cpu_cgroup_path = location.cgroup_path;
    facts.cpu_dir = location.dir;
    walk_up(location, [&](const std::string& dir) {
        auto setting = read_quota_at(root, location.version, dir);
        if (!setting) {
            // Ancestors (the v2 root above all) often lack the files: only our own must have them.
            if (dir == location.dir || setting.error().code != ErrorCode::not_found) {
                facts.warnings.push_back("cpu quota in " + dir + ": " + setting.error().message);
            }
            return;
        }
        if (dir == location.dir) facts.cpu_period_us = setting->period_us;
        if (!setting->quota_us) return;
        CpuQuota candidate{*setting->quota_us, setting->period_us, dir};
        if (!facts.cpu_quota || candidate.cores() < facts.cpu_quota->cores()) {
            facts.cpu_quota = candidate;
        }
    });
    if (facts.cpu_quota) facts.cpu_period_us = facts.cpu_quota->period_us;

    const std::string weight_file = location.version == 1 ? "/cpu.shares" : "/cpu.weight";
    if (auto text = root.read_line(location.dir + weight_file)) {
        auto value = parse_uint64(*text);
        if (!value) {
            facts.warnings.push_back(location.dir + weight_file + ": " + value.error().message);
        } else if (location.version == 1) {
            facts.cpu_shares = *value;
        } else {
            facts.cpu_weight = *value;
        }
    }

    ThrottlingSource source{location.version,
                            facts.cpu_quota ? facts.cpu_quota->cgroup_dir : location.dir};
    facts.throttling_source = source;
    auto counters = read_throttling(root, source);
    if (counters) {
        facts.throttling = *counters;
    } else if (counters.error().code != ErrorCode::not_found) {
        facts.warnings.push_back(counters.error().message);
    }
}

void read_memory_limit(const SysRoot& root, const Location& location, CgroupFacts& facts) {
    const std::string file = location.version == 1 ? "/memory.limit_in_bytes" : "/memory.max";
    walk_up(location, [&](const std::string& dir) {
        auto text = root.read_file(dir + file);
        if (!text) {
            if (dir == location.dir) {
                facts.warnings.push_back("memory limit in " + dir + ": " + text.error().message);
            }
            return;
        }
        auto limit = parse_memory_limit(*text);
        if (!limit) {
            facts.warnings.push_back(dir + file + ": " + limit.error().message);
            return;
        }
        if (*limit && (!facts.memory_limit_bytes || **limit < *facts.memory_limit_bytes)) {
            facts.memory_limit_bytes = **limit;
        }
    });
}

void read_cpuset(const SysRoot& root, const Location& location, CgroupFacts& facts) {
    const std::vector<std::string> files =
        location.version == 1 ? std::vector<std::string>{"/cpuset.effective_cpus", "/cpuset.cpus"}
                              : std::vector<std::string>{"/cpuset.cpus.effective"};
    for (const auto& file : files) {
        auto text = root.read_file(location.dir + file);
        if (!text) continue;
        auto cpus = CpuSet::parse_list(*text);
        if (!cpus) {
            facts.warnings.push_back(location.dir + file + ": " + cpus.error().message);
            return;
        }
        facts.cpuset = *cpus;
        return;
    }
}

Result<uint64_t> stat_value(std::string_view text, std::string_view key) {
    for (std::string_view line : split_lines(text)) {
        auto fields = split_whitespace(line);
        if (fields.size() == 2 && fields[0] == key) {
            auto value = parse_uint64(fields[1]);
            if (!value) {
                return make_error(ErrorCode::parse_error,
                                  "cpu.stat " + std::string(key) + ": " + value.error().message);
            }
            return value;
        }
    }
    return make_error(ErrorCode::not_found, "cpu.stat has no " + std::string(key));
}

// A cpu.max field, a positive integer. Digits too many for 64 bits are out of range, which
// says more than "not a positive integer".
Result<int64_t> cpu_max_field(std::string_view field, const std::string& what,
                              const std::string& expected, const std::string& whole) {
    auto value = parse_int64(field);
    if (value && *value > 0) return value;
    const bool all_digits = std::all_of(field.begin(), field.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (!value && all_digits) {
        return make_error(ErrorCode::parse_error, "cpu.max " + what + " " + std::string(field) +
                                                      " is out of range (at most 2^63-1): '" +
                                                      whole + "'");
    }
    return make_error(ErrorCode::parse_error,
                      "cpu.max " + what + " is " + expected + ": '" + whole + "'");
}

}  // namespace

Result<QuotaSetting> parse_cfs_quota(std::string_view quota_text, std::string_view period_text) {
    auto quota = parse_int64(quota_text);
    if (!quota)
        return make_error(ErrorCode::parse_error, "cpu.cfs_quota_us: " + quota.error().message);
    auto period = parse_int64(period_text);
    if (!period) {
        return make_error(ErrorCode::parse_error, "cpu.cfs_period_us: " + period.error().message);
    }
    if (*period <= 0) {
        return make_error(ErrorCode::parse_error,
                          "cpu.cfs_period_us is " + std::to_string(*period) + ", not positive");
    }
    QuotaSetting setting{std::nullopt, *period};
    if (*quota >= 0) {
        if (*quota == 0) {
            return make_error(ErrorCode::parse_error, "cpu.cfs_quota_us is 0");
        }
        setting.quota_us = *quota;
    } else if (*quota != -1) {
        return make_error(ErrorCode::parse_error, "cpu.cfs_quota_us is " + std::to_string(*quota) +
                                                      " (only -1 means unlimited)");
    }
    return setting;
}

Result<QuotaSetting> parse_cpu_max(std::string_view text) {
    const auto fields = split_whitespace(text);
    const std::string whole(trim(text));
    if (fields.empty() || fields.size() > 2) {
        return make_error(ErrorCode::parse_error,
                          "cpu.max should be '<quota|max> <period>', got '" + whole + "'");
    }
    // The kernel always writes the period; a bare quota means the default 100 ms period.
    QuotaSetting setting{std::nullopt, 100000};
    if (fields.size() == 2) {
        auto period = cpu_max_field(fields[1], "period", "not a positive integer", whole);
        if (!period) return period.error();
        setting.period_us = *period;
    }
    if (fields[0] == "max") return setting;
    auto quota = cpu_max_field(fields[0], "quota", "neither 'max' nor a positive integer", whole);
    if (!quota) return quota.error();
    setting.quota_us = *quota;
    return setting;
}

Result<ThrottlingCounters> parse_cpu_stat(std::string_view text, int version) {
    auto periods = stat_value(text, "nr_periods");
    if (!periods) return periods.error();
    auto throttled = stat_value(text, "nr_throttled");
    if (!throttled) return throttled.error();
    // v1 counts nanoseconds, v2 microseconds.
    auto time = stat_value(text, version == 1 ? "throttled_time" : "throttled_usec");
    if (!time) return time.error();
    return ThrottlingCounters{*periods, *throttled,
                              static_cast<double>(*time) / (version == 1 ? 1e9 : 1e6)};
}

Result<std::optional<uint64_t>> parse_memory_limit(std::string_view text) {
    std::string_view value = trim(text);
    if (value == "max") return std::optional<uint64_t>{};
    auto bytes = parse_uint64(value);
    if (!bytes) return make_error(ErrorCode::parse_error, "memory limit: " + bytes.error().message);
    if (*bytes >= kUnlimitedMemory) return std::optional<uint64_t>{};
    return std::optional<uint64_t>{*bytes};
}

Result<ThrottlingCounters> read_throttling(const SysRoot& root, const ThrottlingSource& source) {
    auto text = root.read_file(source.cgroup_dir + "/cpu.stat");
    if (!text) return text.error();
    auto counters = parse_cpu_stat(*text, source.version);
    if (!counters) {
        return make_error(counters.error().code,
                          source.cgroup_dir + "/cpu.stat: " + counters.error().message);
    }
    return counters;
}

std::optional<CgroupSource> CgroupFacts::pressure_source() const {
    if (cpu_usage_source && cpu_usage_source->version == 2) return cpu_usage_source;
    if (memory_source && memory_source->version == 2) return memory_source;
    return std::nullopt;
}

CgroupFacts read_cgroup_facts(const SysRoot& root) {
    CgroupFacts facts;
    auto cgroup_text = root.read_file("/proc/self/cgroup");
    auto mountinfo_text = root.read_file("/proc/self/mountinfo");
    if (!cgroup_text || !mountinfo_text) {
        facts.warnings.push_back("cgroup: cannot read " + (!cgroup_text
                                                               ? cgroup_text.error().message
                                                               : mountinfo_text.error().message));
        return facts;
    }
    const ProcCgroup cgroups = parse_proc_cgroup(*cgroup_text);
    const MountInfo mounts = parse_mountinfo(*mountinfo_text);
    facts.warnings.insert(facts.warnings.end(), cgroups.warnings.begin(), cgroups.warnings.end());
    facts.warnings.insert(facts.warnings.end(), mounts.warnings.begin(), mounts.warnings.end());

    if (auto cpu = locate(root, mounts, cgroups, "cpu", facts.warnings)) {
        facts.version = cpu->version;
        read_cpu_limits(root, *cpu, facts);
        if (cpu->version == 2) facts.cpu_usage_source = CgroupSource{2, cpu->dir};
    }
    if (facts.version == 1) {
        // cpuacct may be mounted apart from cpu (this host) or with it (ECS hosts). Its warnings
        // repeat the cpu controller's, so they are not kept twice.
        std::vector<std::string> ignored;
        auto cpuacct = locate(root, mounts, cgroups, "cpuacct", ignored);
        if (cpuacct && cpuacct->version == 1) {
            facts.cpu_usage_source = CgroupSource{cpuacct->version, cpuacct->dir};
        }
    }
    if (auto memory = locate(root, mounts, cgroups, "memory", facts.warnings)) {
        if (!facts.version) facts.version = memory->version;
        read_memory_limit(root, *memory, facts);
        facts.memory_source = CgroupSource{memory->version, memory->dir};
    }
    if (auto cpuset = locate(root, mounts, cgroups, "cpuset", facts.warnings)) {
        read_cpuset(root, *cpuset, facts);
    }
    return facts;
}

}  // namespace hostprobe::host
