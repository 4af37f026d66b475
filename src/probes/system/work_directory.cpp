#include "probes/system/work_directory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "probes/storage/test_files.hpp"

namespace hostprobe::probes {

namespace {

constexpr const char* kPrivateMarker = "-system-";  // .hostprobe-<run>-system-XXXXXX
constexpr const char* kLockName = ".lock";
constexpr int kPrivateNameAttempts = 100;  // mkdtemp's TMP_MAX is larger; 62^6 names make it moot
constexpr const char* kNameCharacters =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

// Whether a process still holds the directory's lock; a directory without one is stale too
// (a run killed between mkdirat and the lock).
bool held_by_a_live_process(int parent, const std::string& name) {
    core::UniqueFd directory(
        ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!directory) return true;  // not ours to judge
    const core::UniqueFd lock(
        ::openat(directory.get(), kLockName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    directory.reset();
    if (!lock) return false;
    // Closing `lock` releases the lock, if we got it.
    return ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

std::string random_suffix() {
    std::random_device source;
    std::uniform_int_distribution<size_t> pick(0, std::strlen(kNameCharacters) - 1);
    std::string suffix(6, 'X');
    for (char& c : suffix)
        c = kNameCharacters[pick(source)];
    return suffix;
}

// mkdirat relative to the parent's descriptor, mode 0700, never an existing directory: the
// private kind tries fresh random names as mkdtemp does. The name made, or why not.
Result<std::string> make_directory(int parent, const std::string& base, WorkDirectory::Kind kind) {
    if (kind == WorkDirectory::Kind::in_allowed_directory) {
        if (::mkdirat(parent, base.c_str(), 0700) == 0) return base;
        const int why = errno;
        return make_error(ErrorCode::unavailable, std::strerror(why));
    }
    int why = EEXIST;
    for (int attempt = 0; attempt < kPrivateNameAttempts && why == EEXIST; ++attempt) {
        const std::string name = base + "-" + random_suffix();
        if (::mkdirat(parent, name.c_str(), 0700) == 0) return name;
        why = errno;
    }
    return make_error(ErrorCode::unavailable, std::strerror(why));
}

// An operator's directory ($TMPDIR): its own symlinks resolved once, like --disk-dir's, then
// opened without following one.
Result<DirectoryHandle> open_operator_directory(const std::string& path) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
        const int why = errno;
        return make_error(ErrorCode::unavailable, path + ": " + std::strerror(why));
    }
    return DirectoryHandle::open(resolved);
}

// Removes every entry of the open directory, relative to it: subdirectories (the shell test's)
// with what is in them, symlinks as links.
void remove_entries(int directory) {
    core::UniqueFd listing(::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!listing) return;
    DIR* dir = ::fdopendir(listing.get());
    if (dir == nullptr) return;
    listing.release();  // the DIR owns it now: closedir closes it
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    for (const auto& name : names) {
        if (::unlinkat(directory, name.c_str(), 0) != 0 && errno == EISDIR)
            remove_directory_tree(directory, name);
    }
}

// Whether `name` in `parent` is still the directory open as `directory`.
bool names_the_same(int parent, const std::string& name, int directory) {
    struct stat named {
    }, held{};
    return ::fstatat(parent, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
           ::fstat(directory, &held) == 0 && named.st_dev == held.st_dev &&
           named.st_ino == held.st_ino;
}

}  // namespace

Status check_made_here(int directory, int file, const std::string& path) {
    struct stat made {
    }, created{};
    if (::fstat(directory, &made) != 0 || ::fstat(file, &created) != 0) {
        const int why = errno;
        return make_error(ErrorCode::io_error, "fstat " + path + ": " + std::strerror(why));
    }
    if (!S_ISDIR(made.st_mode) || made.st_uid != created.st_uid) {
        return make_error(ErrorCode::forbidden,
                          path + " was replaced by someone else's directory (owner " +
                              std::to_string(made.st_uid) + ") while it was being made");
    }
    return Ok{};
}

std::string WorkDirectory::private_parent() {
    const char* tmpdir = std::getenv("TMPDIR");
    return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

Result<DirectoryHandle> WorkDirectory::open_private_parent() {
    auto opened = open_operator_directory(private_parent());
    if (!opened) {
        return make_error(ErrorCode::unavailable,
                          "cannot create a private directory in " + private_parent() + ": " +
                              opened.error().message +
                              "; give the system probe a directory inside --disk-dir");
    }
    return opened;
}

WorkDirectory::WorkDirectory(DirectoryHandle parent, std::string name)
    : parent_(std::move(parent)), name_(std::move(name)), path_(parent_.path() + "/" + name_) {}

WorkDirectory::WorkDirectory(WorkDirectory&& other) noexcept
    : parent_(std::move(other.parent_)),
      name_(std::move(other.name_)),
      path_(std::move(other.path_)),
      fd_(std::move(other.fd_)),
      lock_fd_(std::move(other.lock_fd_)) {}

Result<WorkDirectory> WorkDirectory::create(DirectoryHandle parent, const std::string& run_id,
                                            Kind kind) {
    const std::string base = test_file_name(run_id, "system");
    auto made = make_directory(parent.fd(), base, kind);
    if (!made) {
        if (kind == Kind::in_allowed_directory) {
            return make_error(ErrorCode::unavailable, "cannot create " + parent.path() + "/" +
                                                          base + ": " + made.error().message);
        }
        return make_error(ErrorCode::unavailable,
                          "cannot create a private directory like " + parent.path() + "/" + base +
                              "-XXXXXX: " + made.error().message +
                              "; give the system probe a directory inside --disk-dir");
    }
    WorkDirectory created(std::move(parent), std::move(*made));
    if (auto opened = created.open_and_lock(); !opened) return opened.error();
    return created;
}

// Opens what was just made, without following a symlink put in its place, and proves with the
// lock file made in it that it is ours. Only then is it ours to empty and remove.
Status WorkDirectory::open_and_lock() {
    core::UniqueFd fd(
        ::openat(parent_.fd(), name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
        const int why = errno;
        const Error error = make_error(
            ErrorCode::unavailable, "cannot open " + path_ + " just made: " + std::strerror(why));
        ::unlinkat(parent_.fd(), name_.c_str(), AT_REMOVEDIR);  // gone if it was ours, empty
        return error;
    }
    lock_fd_.reset(
        ::openat(fd.get(), kLockName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!lock_fd_) {
        const int why = errno;
        const Error error =
            make_error(ErrorCode::unavailable,
                       "cannot create " + path_ + "/" + kLockName + ": " + std::strerror(why));
        fd.reset();
        ::unlinkat(parent_.fd(), name_.c_str(), AT_REMOVEDIR);  // ours and empty, or it stays
        return error;
    }
    if (auto ours = check_made_here(fd.get(), lock_fd_.get(), path_); !ours) {
        ::unlinkat(fd.get(), kLockName, 0);  // our one file in there; nothing else is ours
        return ours.error();
    }
    fd_ = std::move(fd);  // from here on the destructor empties and removes it
    if (::flock(lock_fd_.get(), LOCK_EX | LOCK_NB) != 0) {
        const int why = errno;
        return make_error(ErrorCode::unavailable,
                          "cannot lock " + path_ + "/" + kLockName + ": " + std::strerror(why));
    }
    return Ok{};
}

size_t WorkDirectory::remove_stale(const std::string& parent, Logger& log) {
    auto handle = open_operator_directory(parent);
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
    if (!fd_) return;  // lock_fd_, if open, closes with the members
    remove_entries(fd_.get());
    // Only the directory we hold: should a writer have renamed it and put another in its
    // place, that one stays.
    if (names_the_same(parent_.fd(), name_, fd_.get()))
        ::unlinkat(parent_.fd(), name_.c_str(), AT_REMOVEDIR);
    fd_.reset();  // before the lock is released with lock_fd_
}

}  // namespace hostprobe::probes
