#include "host/proc_stat.hpp"

#include <unistd.h>

#include <cstdint>
#include <optional>

#include "core/strings.hpp"

namespace hostprobe::host {

Result<double> parse_steal_seconds(std::string_view proc_stat, long ticks_per_second) {
    for (std::string_view line : split_lines(proc_stat)) {
        const auto fields = split_whitespace(line);
        if (fields.empty() || fields[0] != "cpu") continue;
        // cpu user nice system idle iowait irq softirq steal ...
        if (fields.size() < 9)
            return make_error(ErrorCode::parse_error, "/proc/stat cpu line has no steal column");
        auto steal = parse_uint64(fields[8]);
        if (!steal)
            return make_error(ErrorCode::parse_error, "/proc/stat steal: " + steal.error().message);
        return static_cast<double>(*steal) /
               static_cast<double>(ticks_per_second > 0 ? ticks_per_second : 100);
    }
    return make_error(ErrorCode::not_found, "/proc/stat has no cpu line");
}

namespace {

// The CPU number of a "cpuN" line, or none for the aggregate line and anything else.
std::optional<size_t> cpu_number(std::string_view name) {
    if (name.size() <= 3 || name.substr(0, 3) != "cpu") return std::nullopt;
    auto number = parse_uint64(name.substr(3));
    if (!number || *number >= CpuSet::kMaxCpus) return std::nullopt;
    return static_cast<size_t>(*number);
}

}  // namespace

Result<double> parse_steal_seconds(std::string_view proc_stat, long ticks_per_second,
                                   const CpuSet& allowed) {
    if (allowed.empty()) return parse_steal_seconds(proc_stat, ticks_per_second);
    uint64_t ticks = 0;
    size_t listed = 0;
    size_t counted = 0;
    for (std::string_view line : split_lines(proc_stat)) {
        const auto fields = split_whitespace(line);
        if (fields.empty()) continue;
        const auto cpu = cpu_number(fields[0]);
        if (!cpu) continue;
        ++listed;
        if (!allowed.contains(*cpu)) continue;
        if (fields.size() < 9) {
            return make_error(ErrorCode::parse_error,
                              "/proc/stat " + std::string(fields[0]) + " line has no steal column");
        }
        auto steal = parse_uint64(fields[8]);
        if (!steal) {
            return make_error(ErrorCode::parse_error, "/proc/stat " + std::string(fields[0]) +
                                                          " steal: " + steal.error().message);
        }
        if (*steal > UINT64_MAX - ticks) {
            return make_error(ErrorCode::parse_error, "/proc/stat steal overflows 64 bits");
        }
        ticks += *steal;
        ++counted;
    }
    if (counted == listed) return parse_steal_seconds(proc_stat, ticks_per_second);
    if (counted == 0) {
        return make_error(ErrorCode::not_found,
                          "/proc/stat lists none of the CPUs " + allowed.to_list());
    }
    return static_cast<double>(ticks) /
           static_cast<double>(ticks_per_second > 0 ? ticks_per_second : 100);
}

Result<double> read_steal_seconds(const SysRoot& root, const CpuSet& allowed) {
    auto text = root.read_file("/proc/stat");
    if (!text) return text.error();
    return parse_steal_seconds(*text, sysconf(_SC_CLK_TCK), allowed);
}

Result<double> read_steal_seconds(const SysRoot& root) {
    auto text = root.read_file("/proc/stat");
    if (!text) return text.error();
    return parse_steal_seconds(*text, sysconf(_SC_CLK_TCK));
}

}  // namespace hostprobe::host
