#include "host/proc_stat.hpp"

#include <unistd.h>

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

Result<double> read_steal_seconds(const SysRoot& root) {
    auto text = root.read_file("/proc/stat");
    if (!text) return text.error();
    return parse_steal_seconds(*text, sysconf(_SC_CLK_TCK));
}

}  // namespace hostprobe::host
