// /proc/self/cgroup: which cgroup we are in, per hierarchy ("4:memory:/docker/x", "0::/x").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hostprobe::host {

struct ProcCgroupEntry {
    std::string hierarchy_id;
    std::vector<std::string> controllers;  // empty for the cgroup v2 unified hierarchy
    std::string path;
    bool is_unified() const { return hierarchy_id == "0" && controllers.empty(); }
    bool has_controller(std::string_view controller) const;
};

struct ProcCgroup {
    std::vector<ProcCgroupEntry> entries;
    std::vector<std::string> warnings;
};

ProcCgroup parse_proc_cgroup(std::string_view text);

}  // namespace hostprobe::host
