#include "host/cgroup_usage.hpp"

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

// The value of "<key> <value>" in a flat keyed file; not_found when the key is absent.
Result<uint64_t> keyed_value(std::string_view text, std::string_view file, std::string_view key) {
    for (std::string_view line : split_lines(text)) {
        auto fields = split_whitespace(line);
        if (fields.size() == 2 && fields[0] == key) {
            auto value = parse_uint64(fields[1]);
            if (!value) {
                return make_error(
                    ErrorCode::parse_error,
                    std::string(file) + " " + std::string(key) + ": " + value.error().message);
            }
            return value;
        }
    }
    return make_error(ErrorCode::not_found, std::string(file) + " has no " + std::string(key));
}

Result<std::optional<double>> optional_usec(std::string_view text, std::string_view key) {
    auto value = keyed_value(text, "cpu.stat", key);
    if (value) return std::optional<double>{static_cast<double>(*value) / 1e6};
    if (value.error().code == ErrorCode::not_found) return std::optional<double>{};
    return value.error();
}

}  // namespace

Result<double> parse_cpuacct_usage(std::string_view text) {
    auto ns = parse_uint64(trim(text));
    if (!ns) return make_error(ErrorCode::parse_error, "cpuacct.usage: " + ns.error().message);
    return static_cast<double>(*ns) / 1e9;
}

Result<CgroupCpuUsage> parse_cpuacct_stat(std::string_view text, long ticks_per_second) {
    const double hz = static_cast<double>(ticks_per_second > 0 ? ticks_per_second : 100);
    auto user = keyed_value(text, "cpuacct.stat", "user");
    if (!user) return make_error(ErrorCode::parse_error, user.error().message);
    auto system = keyed_value(text, "cpuacct.stat", "system");
    if (!system) return make_error(ErrorCode::parse_error, system.error().message);
    CgroupCpuUsage usage;
    usage.user_seconds = static_cast<double>(*user) / hz;
    usage.system_seconds = static_cast<double>(*system) / hz;
    usage.total_seconds = *usage.user_seconds + *usage.system_seconds;
    return usage;
}

Result<CgroupCpuUsage> parse_cpu_stat_usage(std::string_view text) {
    auto total = keyed_value(text, "cpu.stat", "usage_usec");
    if (!total) return make_error(ErrorCode::parse_error, total.error().message);
    auto user = optional_usec(text, "user_usec");
    if (!user) return user.error();
    auto system = optional_usec(text, "system_usec");
    if (!system) return system.error();
    return CgroupCpuUsage{static_cast<double>(*total) / 1e6, *user, *system};
}

Result<CgroupCpuUsage> read_cgroup_cpu_usage(const SysRoot& root, const CgroupSource& source,
                                             long ticks_per_second) {
    const auto located = [&](const std::string& file, const Error& error) {
        return make_error(error.code, source.cgroup_dir + "/" + file + ": " + error.message);
    };
    if (source.version == 2) {
        auto text = root.read_file(source.cgroup_dir + "/cpu.stat");
        if (!text) return text.error();
        auto usage = parse_cpu_stat_usage(*text);
        if (!usage) return located("cpu.stat", usage.error());
        return usage;
    }
    auto text = root.read_file(source.cgroup_dir + "/cpuacct.usage");
    if (!text) return text.error();
    auto total = parse_cpuacct_usage(*text);
    if (!total) return located("cpuacct.usage", total.error());
    CgroupCpuUsage usage{*total, std::nullopt, std::nullopt};
    auto stat_text = root.read_file(source.cgroup_dir + "/cpuacct.stat");
    if (!stat_text) {
        if (stat_text.error().code == ErrorCode::not_found) return usage;
        return stat_text.error();
    }
    auto split = parse_cpuacct_stat(*stat_text, ticks_per_second);
    if (!split) return located("cpuacct.stat", split.error());
    usage.user_seconds = split->user_seconds;
    usage.system_seconds = split->system_seconds;
    return usage;
}

}  // namespace hostprobe::host
