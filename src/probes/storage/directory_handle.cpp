#include "probes/storage/directory_handle.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

namespace hostprobe::probes {

Result<DirectoryHandle> DirectoryHandle::open(const std::string& path) {
    core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
        return make_error(ErrorCode::io_error,
                          "open directory " + path + ": " + std::strerror(errno));
    }
    return DirectoryHandle(std::move(fd), path);
}

}  // namespace hostprobe::probes
