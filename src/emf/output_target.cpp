#include "emf/output_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hostprobe::emf {

namespace {

// A new open file description of the same pipe or terminal, non-blocking.
core::UniqueFd reopened_non_blocking(int fd) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    return core::UniqueFd(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
}

core::UniqueFd duplicated(int fd) {
    return core::UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

}  // namespace

OutputTarget open_output_target(int fd) {
    OutputTarget target;
    struct stat status {};
    if (::fcntl(fd, F_GETFD) < 0 || ::fstat(fd, &status) != 0) return target;  // closed
    if ((::fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) return target;
    if (S_ISFIFO(status.st_mode) || S_ISCHR(status.st_mode)) {
        target.fd = reopened_non_blocking(fd);
        target.kind = S_ISFIFO(status.st_mode) ? TargetKind::pipe : TargetKind::stream;
        // Without /proc the descriptor itself is used, made non-blocking (shared, but the only
        // way not to block).
        if (!target.fd) {
            target.fd = duplicated(fd);
            if (target.fd) (void)::fcntl(target.fd.get(), F_SETFL, O_NONBLOCK);
        }
    } else {
        target.fd = duplicated(fd);
        target.kind = TargetKind::stream;
        target.socket = S_ISSOCK(status.st_mode);
    }
    if (!target.fd) target.kind = TargetKind::closed;
    return target;
}

}  // namespace hostprobe::emf
