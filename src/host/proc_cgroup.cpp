#include "host/proc_cgroup.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace hostprobe::host {

bool ProcCgroupEntry::has_controller(std::string_view controller) const {
    return std::find(controllers.begin(), controllers.end(), controller) != controllers.end();
}

ProcCgroup parse_proc_cgroup(std::string_view text) {
    ProcCgroup result;
    for (std::string_view raw_line : split_lines(text)) {
        std::string_view line = trim(raw_line);
        if (line.empty()) continue;
        // The path may itself contain ':', so split only on the first two.
        const size_t first = line.find(':');
        const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos || first == 0 ||
            !std::all_of(line.begin(), line.begin() + static_cast<long>(first),
                         [](char c) { return c >= '0' && c <= '9'; }) ||
            line.size() == second + 1 || line[second + 1] != '/') {
            result.warnings.push_back("/proc/self/cgroup line is malformed: '" + std::string(line) +
                                      "'");
            continue;
        }
        ProcCgroupEntry entry;
        entry.hierarchy_id = std::string(line.substr(0, first));
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        if (!controllers.empty()) {
            for (std::string_view controller : split(controllers, ',')) {
                entry.controllers.emplace_back(controller);
            }
        }
        entry.path = std::string(line.substr(second + 1));
        result.entries.push_back(std::move(entry));
    }
    return result;
}

}  // namespace hostprobe::host
