#include "probes/system/work_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "probes/storage/test_files.hpp"

namespace hostprobe::probes {

namespace {

constexpr const char* kPrivateMarker = "-system-";  // .hostprobe-<run>-system-XXXXXX
constexpr const char* kLockName = ".lock";

// Whether a process still holds the directory's lock; a directory without one is stale too
// (a run killed between mkdtemp and the lock).
bool held_by_a_live_process(int parent, const std::string& name) {
    const int directory =
        ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (directory < 0) return true;  // not ours to judge
    const int lock = ::openat(directory, kLockName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ::close(directory);
    if (lock < 0) return false;
    const bool held = ::flock(lock, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(lock);  // releases it, if we got it
    return held;
}

}  // namespace

std::string WorkDirectory::private_parent() {
    const char* tmpdir = std::getenv("TMPDIR");
    return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

Result<WorkDirectory> WorkDirectory::create(const std::string& parent, const std::string& run_id) {
    const std::string name = test_file_name(run_id, "system");
    if (!parent.empty()) {
        std::string path = parent + "/" + name;
        if (::mkdir(path.c_str(), 0700) != 0) {
            return make_error(ErrorCode::unavailable,
                              "cannot create " + path + ": " + std::strerror(errno));
        }
        return WorkDirectory(std::move(path), -1);
    }
    std::string pattern = private_parent() + "/" + name + "-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) {
        return make_error(ErrorCode::unavailable,
                          "cannot create a private directory like " + pattern + ": " +
                              std::strerror(errno) +
                              "; give the system probe a directory inside --disk-dir");
    }
    WorkDirectory created(std::string(buffer.data()), -1);  // removed again on an error below
    const std::string lock_path = created.path_ + "/" + kLockName;
    created.lock_fd_ =
        ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (created.lock_fd_ < 0 || ::flock(created.lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        return make_error(ErrorCode::unavailable,
                          "cannot lock " + lock_path + ": " + std::strerror(errno));
    }
    return created;
}

size_t WorkDirectory::remove_stale(const std::string& parent, Logger& log) {
    auto handle = DirectoryHandle::open(parent);
    if (!handle) return 0;  // no temporary directory: nothing can have been left there
    std::vector<std::string> stale;
    for (const auto& [name, info] : list_test_files(*handle)) {
        if (name.find(kPrivateMarker) == std::string::npos) continue;
        if (!S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) continue;
        if (!held_by_a_live_process(handle->fd(), name)) stale.push_back(name);
    }
    for (const auto& name : stale) {
        remove_directory_tree(handle->fd(), name);
        log.warn("removed a stale work directory", {{"directory", parent}, {"name", name}});
    }
    return stale.size();
}

WorkDirectory::~WorkDirectory() {
    if (!path_.empty()) {
        std::error_code ignored;  // remove_all removes symlinks, never what they point to
        std::filesystem::remove_all(path_, ignored);
    }
    if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace hostprobe::probes
