// Where probes may write: hostprobe writes to someone else's storage, so a directory must lie
// inside the operator's allowlist (--disk-dir). The allowlist's own symlinks are resolved once,
// at start; below an allowed directory nothing a caller or a writer there controls is followed.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "probes/storage/directory_handle.hpp"
#include "probes/storage/open_beneath.hpp"

namespace hostprobe::probes {

// The longest directory a caller may name: a path the kernel takes (PATH_MAX with its NUL).
inline constexpr size_t kMaxDirectoryPathBytes = PATH_MAX - 1;

struct StoragePolicy {
    std::vector<std::string> allowed_dirs;   // resolved absolute paths
    bool any_directory = false;              // `hostprobe run` trusts the directory its user names
    uint64_t max_bytes = uint64_t{4} << 30;  // per run, all files together
    double max_runtime_seconds = 600;
    // Bytes an unprivileged writer may still use below a directory; statvfs unless a test
    // needs to pretend (to reach ENOSPC on a small filesystem past the up-front check).
    std::function<Result<uint64_t>(const std::string&)> free_space;
    // How directories are opened below an allowed one; tests choose to cover both ways.
    BeneathMethod open_method = BeneathMethod::automatic;
};

Result<uint64_t> statvfs_free_space(const std::string& directory);

// Resolves each allowlisted directory (they must exist), for the policy.
Result<std::vector<std::string>> resolve_allowed_dirs(const std::vector<std::string>& dirs);

// Opens the requested directory for a run. The path is matched against the allowlist by its
// text alone (absolute, no "..", named below an allowed directory as the allowlist spells it),
// so a path outside gets the same 403 whether it exists or not; then it is opened from the
// allowed directory's descriptor, component by component, refusing every symlink. The handle's
// path is the allowed directory plus the components: the directory actually opened.
// Errors: 400 for an empty or oversized path or a component that is not a directory; 403 for
// a relative path, "..", outside the allowlist, a symlink, no permission; 404 for a missing
// directory inside the allowlist.
Result<DirectoryHandle> open_storage_directory(const StoragePolicy& policy,
                                               const std::string& requested);

// open_storage_directory's path alone, for callers that still work by path.
Result<std::string> resolve_directory(const StoragePolicy& policy, const std::string& requested);

// Checks that `bytes` fit: at most the policy's maximum and the free space less a 10% margin.
Status check_space(const StoragePolicy& policy, const std::string& directory, uint64_t bytes);
// The same for an opened directory (fstatvfs on its descriptor).
Status check_space(const StoragePolicy& policy, const DirectoryHandle& directory, uint64_t bytes);

}  // namespace hostprobe::probes
