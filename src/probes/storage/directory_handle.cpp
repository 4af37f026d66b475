#include "probes/storage/directory_handle.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hostprobe::probes {

Result<DirectoryHandle> DirectoryHandle::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return make_error(ErrorCode::io_error,
                          "open directory " + path + ": " + std::strerror(errno));
    }
    return DirectoryHandle(fd, path);
}

DirectoryHandle::DirectoryHandle(DirectoryHandle&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
}

DirectoryHandle::~DirectoryHandle() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace hostprobe::probes
