#include "probes/system/pipe_io.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace hostprobe::probes {

Result<Pipe> Pipe::open() {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) return errno_error("pipe");
    return Pipe(ends[0], ends[1]);
}

Result<Pipe> Pipe::open_socket_pair() {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        return errno_error("socketpair");
    return Pipe(ends[0], ends[1]);
}

namespace {

// Repeats `transfer` (a read, write or send of up to `size` bytes at `bytes`) over short
// transfers and EINTR until all `size` bytes are moved; false on an error or the end.
template <typename Bytes, typename Transfer>
bool transfer_all(Bytes* bytes, size_t size, Transfer transfer) {
    while (size > 0) {
        const ssize_t moved = transfer(bytes, size);
        if (moved < 0 && errno == EINTR) continue;
        if (moved <= 0) return false;
        bytes += moved;
        size -= static_cast<size_t>(moved);
    }
    return true;
}

}  // namespace

bool write_all(int fd, const void* data, size_t size) {
    return transfer_all(static_cast<const char*>(data), size,
                        [fd](const char* bytes, size_t left) { return ::write(fd, bytes, left); });
}

bool send_all(int fd, const void* data, size_t size) {
    return transfer_all(static_cast<const char*>(data), size, [fd](const char* bytes, size_t left) {
        return ::send(fd, bytes, left, MSG_NOSIGNAL);
    });
}

bool read_all(int fd, void* data, size_t size) {
    return transfer_all(static_cast<char*>(data), size,
                        [fd](char* bytes, size_t left) { return ::read(fd, bytes, left); });
}

Error errno_error(const std::string& what) {
    return Error{ErrorCode::internal, what + ": " + std::strerror(errno)};
}

}  // namespace hostprobe::probes
