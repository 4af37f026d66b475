#include "probes/storage/open_beneath.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/strings.hpp"
#include "core/unique_fd.hpp"

namespace hostprobe::probes {

namespace {

constexpr int kPassThroughFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr int kWorkInFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr int kOpenat2Attempts = 3;

int flags_for(BeneathIntent intent) {
    return intent == BeneathIntent::work_in ? kWorkInFlags : kPassThroughFlags;
}

bool is_plain_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." &&
           name.find_first_of(std::string("/\0", 2)) == std::string::npos;
}

// root_path with the first `count` components appended: what a message names.
std::string joined(const std::string& root_path, const std::vector<std::string>& components,
                   size_t count) {
    std::string path = root_path;
    for (size_t i = 0; i < count; ++i) {
        if (path.empty() || path.back() != '/') path += '/';
        path += components[i];
    }
    return path;
}

Error failure(int error, const std::string& where) {
    switch (error) {
        case ELOOP:
            return make_error(ErrorCode::forbidden,
                              where +
                                  " is a symlink; hostprobe follows no symlink inside an allowed "
                                  "directory");
        case ENOTDIR: return make_error(ErrorCode::invalid_argument, where + " is not a directory");
        case ENOENT: return make_error(ErrorCode::not_found, where + " does not exist");
        case EACCES:
        case EPERM: return make_error(ErrorCode::forbidden, where + ": permission denied");
        case EXDEV:
            return make_error(ErrorCode::forbidden, where + " leads out of its allowed directory");
        case ENAMETOOLONG:
            return make_error(ErrorCode::invalid_argument, where + ": name too long");
        default:
            return make_error(ErrorCode::io_error, "open " + where + ": " + std::strerror(error));
    }
}

// O_DIRECTORY | O_NOFOLLOW on a symlink answers ENOTDIR, not ELOOP: the entry itself tells.
// Only an entry that is still there and neither a symlink nor a directory is "not a
// directory"; one that is a directory again was swapped while we looked, most likely for a
// symlink, and is refused like one.
int classify(int parent, const std::string& name, int error) {
    if (error != ENOTDIR) return error;
    struct stat info {};
    if (::fstatat(parent, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return error;
    return S_ISLNK(info.st_mode) || S_ISDIR(info.st_mode) ? ELOOP : ENOTDIR;
}

// Each component is opened relative to the descriptor of the one before, never by path, so
// replacing a directory already passed changes nothing, and a symlink met is refused.
Result<core::UniqueFd> walk(int root, const std::string& root_path,
                            const std::vector<std::string>& components, BeneathIntent intent) {
    if (components.empty()) {
        core::UniqueFd fd(::openat(root, ".", flags_for(intent)));
        if (!fd) return failure(errno, root_path);
        return fd;
    }
    core::UniqueFd current;  // the component opened last; `root` itself is not ours to close
    for (size_t i = 0; i < components.size(); ++i) {
        const bool last = i + 1 == components.size();
        const int parent = current ? current.get() : root;
        core::UniqueFd next(
            ::openat(parent, components[i].c_str(), last ? flags_for(intent) : kPassThroughFlags));
        if (!next) {
            return failure(classify(parent, components[i], errno),
                           joined(root_path, components, i + 1));
        }
        current = std::move(next);
    }
    return current;
}

// The descriptor, handed to the caller who now owns it.
Result<int> released(Result<core::UniqueFd> opened) {
    if (!opened) return opened.error();
    return opened->release();
}

// openat2 with every symlink refused and the walk confined below `root`; -1 and errno on error.
// Without O_NOFOLLOW, so that a symlink in the last place, too, is ELOOP (with it, O_DIRECTORY
// would answer ENOTDIR for it, like a file).
int call_openat2(int root, const std::string& relative, int flags) {
    open_how how{};
    how.flags = static_cast<uint64_t>(flags & ~O_NOFOLLOW);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    for (int attempt = 1;; ++attempt) {
        const long fd = ::syscall(SYS_openat2, root, relative.c_str(), &how, sizeof how);
        // EAGAIN: a concurrent rename the kernel could not rule out; it asks for a retry.
        if (fd >= 0 || errno != EAGAIN || attempt == kOpenat2Attempts) return static_cast<int>(fd);
    }
}

}  // namespace

Result<int> open_beneath(int root, const std::string& root_path,
                         const std::vector<std::string>& components, BeneathIntent intent,
                         BeneathMethod method) {
    for (const auto& name : components) {
        if (!is_plain_name(name)) {
            return make_error(ErrorCode::invalid_argument,
                              "'" + name + "' below " + root_path + " is not a plain name");
        }
    }
    if (method == BeneathMethod::walk) return released(walk(root, root_path, components, intent));

    const int fd =
        call_openat2(root, components.empty() ? "." : join(components, "/"), flags_for(intent));
    if (fd >= 0) return fd;
    const int error = errno;
    // Kernels before 5.6 answer ENOSYS; seccomp profiles written before it, often EPERM.
    if ((error == ENOSYS || error == EPERM) && method == BeneathMethod::automatic)
        return released(walk(root, root_path, components, intent));
    if (error == ENOSYS)
        return make_error(ErrorCode::unavailable, "openat2 is not available on this kernel");
    // openat2 does not say which component failed: the walk finds it (and refuses just the
    // same). Should the tree have changed in between, openat2's answer stands.
    if (auto located = walk(root, root_path, components, intent); !located) return located.error();
    return failure(error, joined(root_path, components, components.size()));
}

}  // namespace hostprobe::probes
