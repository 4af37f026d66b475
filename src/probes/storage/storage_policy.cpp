#include "probes/storage/storage_policy.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

Result<std::string> real_path(const std::string& path) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
        const int saved = errno;
        return make_error(saved == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                          "directory " + path + ": " + std::strerror(saved));
    }
    return std::string(resolved);
}

bool is_within(const std::string& path, const std::string& dir) {
    return path == dir || (dir == "/" ? !path.empty() : path.rfind(dir + "/", 0) == 0);
}

}  // namespace

Result<std::vector<std::string>> resolve_allowed_dirs(const std::vector<std::string>& dirs) {
    std::vector<std::string> resolved;
    for (const auto& dir : dirs) {
        if (dir.empty() || dir.front() != '/') {
            return make_error(ErrorCode::invalid_argument,
                              "allowed directory '" + dir + "' must be an absolute path");
        }
        auto real = real_path(dir);
        if (!real) return real.error();
        struct stat info {};
        if (::stat(real->c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
            return make_error(ErrorCode::invalid_argument,
                              "allowed directory '" + dir + "' is not a directory");
        }
        resolved.push_back(*real);
    }
    return resolved;
}

Result<std::string> resolve_directory(const StoragePolicy& policy, const std::string& requested) {
    if (requested.empty())
        return make_error(ErrorCode::invalid_argument, "'directory' is required");
    if (!policy.any_directory && policy.allowed_dirs.empty()) {
        return make_error(ErrorCode::forbidden,
                          "storage probes are disabled: start hostprobe with --disk-dir DIR (or "
                          "HOSTPROBE_DISK_DIRS) "
                          "to allow a directory");
    }
    if (requested.front() != '/') {
        return make_error(ErrorCode::forbidden,
                          "directory '" + requested + "' must be an absolute path");
    }
    for (std::string_view part : split(requested, '/')) {
        if (part == "..") {
            return make_error(ErrorCode::forbidden,
                              "directory '" + requested + "' must not contain '..'");
        }
    }
    auto resolved = real_path(requested);
    if (!resolved) return resolved.error();
    struct stat info {};
    if (::stat(resolved->c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        return make_error(ErrorCode::invalid_argument, "'" + requested + "' is not a directory");
    }
    if (policy.any_directory) return resolved;
    for (const auto& allowed : policy.allowed_dirs) {
        if (is_within(*resolved, allowed)) return resolved;
    }
    const std::string via = *resolved == requested ? "" : " (it resolves to " + *resolved + ")";
    return make_error(
        ErrorCode::forbidden,
        "directory '" + requested + "'" + via +
            " is not inside an allowed directory (--disk-dir): " + join(policy.allowed_dirs, ", "));
}

Result<uint64_t> statvfs_free_space(const std::string& directory) {
    struct statvfs space {};
    if (::statvfs(directory.c_str(), &space) != 0) {
        return make_error(ErrorCode::io_error,
                          "statvfs " + directory + ": " + std::strerror(errno));
    }
    return static_cast<uint64_t>(space.f_bavail) * space.f_frsize;
}

Status check_space(const StoragePolicy& policy, const std::string& directory, uint64_t bytes) {
    if (bytes > policy.max_bytes) {
        return make_error(ErrorCode::invalid_argument,
                          "the test files would take " + format_byte_size(bytes) +
                              ", over the limit of " + format_byte_size(policy.max_bytes) +
                              " (--disk-max-bytes)");
    }
    auto free_space =
        policy.free_space ? policy.free_space(directory) : statvfs_free_space(directory);
    if (!free_space) return free_space.error();
    const uint64_t free_bytes = *free_space;
    const uint64_t usable = free_bytes - free_bytes / 10;
    if (bytes > usable) {
        return make_error(ErrorCode::invalid_argument,
                          "the test files would take " + format_byte_size(bytes) + " but " +
                              directory + " has " + std::to_string(free_bytes / (1024 * 1024)) +
                              " MiB free; hostprobe keeps a 10% margin and uses at most " +
                              std::to_string(usable / (1024 * 1024)) + " MiB");
    }
    return Ok{};
}

}  // namespace hostprobe::probes
