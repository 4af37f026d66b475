#include "core/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace hostprobe::core {

namespace {

std::string name_of(const std::string& path, std::string_view shown_as) {
    return shown_as.empty() ? path : std::string(shown_as);
}

Error system_error(const std::string& name, int error) {
    return make_error(error == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                      name + ": " + std::strerror(error));
}

// Why `path` cannot be opened when stat says ENOENT: nothing there, or a link to nothing (which
// is not "absent": the journal must not be recreated over it, a sysroot must say it is broken).
Error missing(const std::string& path, const std::string& name) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        char target[PATH_MAX];
        const ssize_t length = ::readlink(path.c_str(), target, sizeof target - 1);
        const std::string pointee =
            length > 0 ? std::string(target, static_cast<size_t>(length)) : std::string("?");
        return make_error(ErrorCode::io_error, name + ": a symbolic link to " + pointee +
                                                   ", which does not exist (dangling)");
    }
    return system_error(name, ENOENT);
}

Error not_regular(const std::string& name, mode_t mode) {
    return make_error(ErrorCode::io_error,
                      name + ": " + std::string(file_kind(mode)) + ", not a regular file");
}

}  // namespace

std::string_view file_kind(mode_t mode) {
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "of an unknown kind";
}

Result<RegularFile> open_regular_file(const std::string& path, std::string_view shown_as) {
    const std::string name = name_of(path, shown_as);
    struct stat before {};
    if (::stat(path.c_str(), &before) != 0) {
        const int saved = errno;
        return saved == ENOENT ? missing(path, name) : system_error(name, saved);
    }
    if (!S_ISREG(before.st_mode)) return not_regular(name, before.st_mode);
    // O_NONBLOCK: should a FIFO be swapped in after the stat, the open returns at once.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd) {
        const int saved = errno;
        return saved == ENOENT ? missing(path, name) : system_error(name, saved);
    }
    struct stat opened {};
    if (::fstat(fd.get(), &opened) != 0) return system_error(name, errno);
    if (!S_ISREG(opened.st_mode)) return not_regular(name, opened.st_mode);
    // A regular file now: reads block as usual (a FUSE or network file may otherwise say EAGAIN).
    if (const int flags = ::fcntl(fd.get(), F_GETFL); flags >= 0)
        ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    return RegularFile{std::move(fd), static_cast<uint64_t>(opened.st_size)};
}

Result<size_t> read_some(int fd, char* buffer, size_t size, std::string_view shown_as) {
    while (true) {
        const ssize_t n = ::read(fd, buffer, size);
        if (n >= 0) return static_cast<size_t>(n);
        if (errno != EINTR) return system_error(std::string(shown_as), errno);
    }
}

Result<std::string> read_regular_file(const std::string& path, size_t max_bytes,
                                      std::string_view shown_as) {
    const std::string name = name_of(path, shown_as);
    auto file = open_regular_file(path, name);
    if (!file) return file.error();
    if (file->size > max_bytes)
        return make_error(ErrorCode::too_large, name + ": " + std::to_string(file->size) +
                                                    " bytes, larger than " +
                                                    std::to_string(max_bytes) + " bytes");
    std::string content;
    char buffer[16384];
    while (true) {
        auto n = read_some(file->fd.get(), buffer, sizeof buffer, name);
        if (!n) return n.error();
        if (*n == 0) return content;
        if (content.size() + *n > max_bytes)
            return make_error(ErrorCode::too_large,
                              name + ": larger than " + std::to_string(max_bytes) + " bytes");
        content.append(buffer, *n);
    }
}

}  // namespace hostprobe::core
