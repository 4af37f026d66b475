#include "host/proc_stat.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

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

namespace {

constexpr size_t kOldestKernelModes = 4;  // user nice system idle

// The mode columns of one "cpu" or "cpuN" line, in ticks.
struct ModeTicks {
    std::array<uint64_t, kCpuModes.size()> ticks{};
    size_t modes = 0;
};

Result<ModeTicks> parse_mode_ticks(std::string_view line) {
    const auto fields = split_whitespace(line);
    const std::string name(fields.empty() ? std::string_view() : fields[0]);
    if (fields.size() < 1 + kOldestKernelModes) {
        return make_error(ErrorCode::parse_error, "/proc/stat " + name + " line has " +
                                                      std::to_string(fields.size() - 1) +
                                                      " columns, fewer than 4");
    }
    ModeTicks line_ticks;
    line_ticks.modes = std::min(fields.size() - 1, kCpuModes.size());
    for (size_t mode = 0; mode < line_ticks.modes; ++mode) {
        auto value = parse_uint64(fields[1 + mode]);
        if (!value) {
            return make_error(ErrorCode::parse_error, "/proc/stat " + name + " " + kCpuModes[mode] +
                                                          ": " + value.error().message);
        }
        line_ticks.ticks[mode] = *value;
    }
    return line_ticks;
}

CpuModeSeconds to_seconds(const ModeTicks& sum, long ticks_per_second) {
    CpuModeSeconds seconds;
    seconds.modes = sum.modes;
    const double hz = static_cast<double>(ticks_per_second > 0 ? ticks_per_second : 100);
    for (size_t mode = 0; mode < sum.modes; ++mode)
        seconds.seconds[mode] = static_cast<double>(sum.ticks[mode]) / hz;
    return seconds;
}

bool names_a_cpu_line(std::string_view line) {
    return line.substr(0, 3) == "cpu";
}

Result<CpuModeSeconds> aggregate_mode_seconds(std::string_view proc_stat, long ticks_per_second) {
    for (std::string_view line : split_lines(proc_stat)) {
        if (!names_a_cpu_line(line) || line.size() < 4 || (line[3] != ' ' && line[3] != '\t')) {
            continue;
        }
        auto ticks = parse_mode_ticks(line);
        if (!ticks) return ticks.error();
        return to_seconds(*ticks, ticks_per_second);
    }
    return make_error(ErrorCode::not_found, "/proc/stat has no cpu line");
}

}  // namespace

Result<CpuModeSeconds> parse_cpu_mode_seconds(std::string_view proc_stat, long ticks_per_second,
                                              const CpuSet& allowed) {
    if (allowed.empty()) return aggregate_mode_seconds(proc_stat, ticks_per_second);
    ModeTicks sum;
    sum.modes = kCpuModes.size();
    size_t listed = 0;
    size_t counted = 0;
    for (std::string_view line : split_lines(proc_stat)) {
        if (!names_a_cpu_line(line)) continue;
        const auto cpu = cpu_number(line.substr(0, line.find_first_of(" \t")));
        if (!cpu) continue;
        ++listed;
        if (!allowed.contains(*cpu)) continue;
        auto ticks = parse_mode_ticks(line);
        if (!ticks) return ticks.error();
        sum.modes = std::min(sum.modes, ticks->modes);
        for (size_t mode = 0; mode < ticks->modes; ++mode) {
            if (ticks->ticks[mode] > UINT64_MAX - sum.ticks[mode]) {
                return make_error(
                    ErrorCode::parse_error,
                    std::string("/proc/stat ") + kCpuModes[mode] + " overflows 64 bits");
            }
            sum.ticks[mode] += ticks->ticks[mode];
        }
        ++counted;
    }
    if (counted == listed) return aggregate_mode_seconds(proc_stat, ticks_per_second);
    if (counted == 0) {
        return make_error(ErrorCode::not_found,
                          "/proc/stat lists none of the CPUs " + allowed.to_list());
    }
    return to_seconds(sum, ticks_per_second);
}

Result<CpuModeSeconds> read_cpu_mode_seconds(const SysRoot& root, const CpuSet& allowed) {
    auto text = root.read_file("/proc/stat");
    if (!text) return text.error();
    return parse_cpu_mode_seconds(*text, sysconf(_SC_CLK_TCK), allowed);
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
