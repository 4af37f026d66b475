#include "probes/storage/storage_policy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/strings.hpp"
#include "core/unique_fd.hpp"

namespace hostprobe::probes {

namespace {

Result<std::string> real_path(const std::string& path) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
        const int saved = errno;
        return make_error(saved == ENOENT ? ErrorCode::not_found : ErrorCode::invalid_argument,
                          "directory " + path + ": " + std::strerror(saved));
    }
    return std::string(resolved);
}

// The names of an absolute path, without empty and "." components.
std::vector<std::string> components_of(std::string_view path) {
    std::vector<std::string> names;
    for (std::string_view name : split(path, '/')) {
        if (!name.empty() && name != ".") names.emplace_back(name);
    }
    return names;
}

bool starts_with(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
    return prefix.size() <= path.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

std::string path_of(const std::vector<std::string>& components) {
    return "/" + join(components, "/");
}

// What the caller asked for, checked by its text alone: nothing on disk is looked at yet.
Result<std::vector<std::string>> requested_components(const std::string& requested) {
    if (requested.empty())
        return make_error(ErrorCode::invalid_argument, "'directory' is required");
    if (requested.size() > kMaxDirectoryPathBytes) {
        return make_error(ErrorCode::invalid_argument,
                          "'directory' is " + std::to_string(requested.size()) +
                              " bytes long; at most " + std::to_string(kMaxDirectoryPathBytes) +
                              " are allowed");
    }
    if (requested.find('\0') != std::string::npos)
        return make_error(ErrorCode::invalid_argument, "'directory' contains a NUL byte");
    if (requested.front() != '/') {
        return make_error(ErrorCode::forbidden,
                          "directory '" + requested + "' must be an absolute path");
    }
    std::vector<std::string> names = components_of(requested);
    for (const auto& name : names) {
        if (name == "..") {
            return make_error(ErrorCode::forbidden,
                              "directory '" + requested + "' must not contain '..'");
        }
    }
    return names;
}

// Opens root (an operator's path, resolved at start: refused should it have become a symlink
// since) and then `below` from its descriptor.
Result<DirectoryHandle> open_below(const std::vector<std::string>& root,
                                   const std::vector<std::string>& below, BeneathMethod method) {
    const core::UniqueFd slash(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!slash)
        return make_error(ErrorCode::io_error, std::string("open /: ") + std::strerror(errno));
    const std::string root_path = path_of(root);
    auto opened_root = open_beneath(slash.get(), "/", root, BeneathIntent::pass_through, method);
    if (!opened_root) {
        return make_error(
            ErrorCode::unavailable,
            "allowed directory " + root_path + " cannot be opened: " + opened_root.error().message);
    }
    const core::UniqueFd allowed(*opened_root);
    auto opened = open_beneath(allowed.get(), root_path, below, BeneathIntent::work_in, method);
    if (!opened) return opened.error();
    std::vector<std::string> whole = root;
    whole.insert(whole.end(), below.begin(), below.end());
    return DirectoryHandle::adopt(core::UniqueFd(*opened), path_of(whole));
}

Result<uint64_t> fstatvfs_free_space(const DirectoryHandle& directory) {
    struct statvfs space {};
    if (::fstatvfs(directory.fd(), &space) != 0) {
        return make_error(ErrorCode::io_error,
                          "statvfs " + directory.path() + ": " + std::strerror(errno));
    }
    return static_cast<uint64_t>(space.f_bavail) * space.f_frsize;
}

Status check_fit(const std::string& directory, uint64_t bytes, const Result<uint64_t>& free_space) {
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

Status check_limit(const StoragePolicy& policy, uint64_t bytes) {
    if (bytes > policy.max_bytes) {
        return make_error(ErrorCode::invalid_argument,
                          "the test files would take " + format_byte_size(bytes) +
                              ", over the limit of " + format_byte_size(policy.max_bytes) +
                              " (--disk-max-bytes)");
    }
    return Ok{};
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

Result<DirectoryHandle> open_storage_directory(const StoragePolicy& policy,
                                               const std::string& requested) {
    if (!policy.any_directory && policy.allowed_dirs.empty()) {
        return make_error(ErrorCode::forbidden,
                          "storage probes are disabled: start hostprobe with --disk-dir DIR (or "
                          "HOSTPROBE_DISK_DIRS) to allow a directory");
    }
    auto names = requested_components(requested);
    if (!names) return names.error();
    if (policy.any_directory) {
        // `hostprobe run`: the user's own path, resolved once like an allowlist entry.
        auto real = real_path(requested);
        if (!real) return real.error();
        return open_below({}, components_of(*real), policy.open_method);
    }
    // The closest allowed directory that contains the path, by its text.
    const std::vector<std::string>* best = nullptr;
    std::vector<std::vector<std::string>> roots;
    roots.reserve(policy.allowed_dirs.size());
    for (const auto& allowed : policy.allowed_dirs)
        roots.push_back(components_of(allowed));
    for (const auto& root : roots) {
        if (starts_with(*names, root) && (best == nullptr || root.size() > best->size()))
            best = &root;
    }
    if (best == nullptr) {
        // The same answer whether the path exists or not: it is none of the caller's business.
        return make_error(ErrorCode::forbidden,
                          "directory '" + requested +
                              "' is not inside an allowed directory (--disk-dir): " +
                              join(policy.allowed_dirs, ", "));
    }
    const std::vector<std::string> below(names->begin() + static_cast<long>(best->size()),
                                         names->end());
    auto opened = open_below(*best, below, policy.open_method);
    if (!opened) {
        return make_error(opened.error().code,
                          "directory '" + requested + "': " + opened.error().message);
    }
    return opened;
}

Result<std::string> resolve_directory(const StoragePolicy& policy, const std::string& requested) {
    auto opened = open_storage_directory(policy, requested);
    if (!opened) return opened.error();
    return opened->path();
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
    if (auto limited = check_limit(policy, bytes); !limited) return limited;
    return check_fit(
        directory, bytes,
        policy.free_space ? policy.free_space(directory) : statvfs_free_space(directory));
}

Status check_space(const StoragePolicy& policy, const DirectoryHandle& directory, uint64_t bytes) {
    if (auto limited = check_limit(policy, bytes); !limited) return limited;
    return check_fit(
        directory.path(), bytes,
        policy.free_space ? policy.free_space(directory.path()) : fstatvfs_free_space(directory));
}

}  // namespace hostprobe::probes
