// /proc/self/mountinfo: how cgroup hierarchies are mounted, so our cgroup path can be turned into
// a directory without assuming controller names or mount points.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hostprobe::host {

struct MountInfoEntry {
    std::string root;         // the part of the filesystem that is mounted ("/" or "/docker/x")
    std::string mount_point;  // where it is mounted, as a machine path
    std::string fs_type;      // "cgroup", "cgroup2", ...
    std::vector<std::string> super_options;  // for cgroup v1 these name the controllers
    bool has_super_option(std::string_view option) const;
};

struct MountInfo {
    std::vector<MountInfoEntry> entries;
    std::vector<std::string> warnings;  // one per line that could not be parsed
};

MountInfo parse_mountinfo(std::string_view text);

}  // namespace hostprobe::host
