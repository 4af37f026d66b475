// Where probes may write: hostprobe writes to someone else's storage, so a directory must lie
// inside the operator's allowlist (--disk-dir), after every symlink is resolved.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::probes {

struct StoragePolicy {
    std::vector<std::string> allowed_dirs;   // resolved absolute paths
    bool any_directory = false;              // `hostprobe run` trusts the directory its user names
    uint64_t max_bytes = uint64_t{4} << 30;  // per run, all files together
    double max_runtime_seconds = 600;
    // Bytes an unprivileged writer may still use below a directory; statvfs unless a test
    // needs to pretend (to reach ENOSPC on a small filesystem past the up-front check).
    std::function<Result<uint64_t>(const std::string&)> free_space;
};

Result<uint64_t> statvfs_free_space(const std::string& directory);

// Resolves each allowlisted directory (they must exist), for the policy.
Result<std::vector<std::string>> resolve_allowed_dirs(const std::vector<std::string>& dirs);

// The real path of a requested directory, or forbidden (403) for a relative path, "..", or a
// path (symlinks resolved) outside the allowlist; not_found when it does not exist.
Result<std::string> resolve_directory(const StoragePolicy& policy, const std::string& requested);

// Checks that `bytes` fit: at most the policy's maximum and the free space less a 10% margin.
Status check_space(const StoragePolicy& policy, const std::string& directory, uint64_t bytes);

}  // namespace hostprobe::probes
