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

Pipe::Pipe(Pipe&& other) noexcept : read_end_(other.read_end_), write_end_(other.write_end_) {
    other.read_end_ = -1;
    other.write_end_ = -1;
}

Pipe::~Pipe() {
    close_read();
    close_write();
}

void Pipe::close_read() {
    if (read_end_ >= 0) ::close(read_end_);
    read_end_ = -1;
}

void Pipe::close_write() {
    if (write_end_ >= 0) ::close(write_end_);
    write_end_ = -1;
}

bool write_all(int fd, const void* data, size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t written = ::write(fd, bytes, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        bytes += written;
        size -= static_cast<size_t>(written);
    }
    return true;
}

bool send_all(int fd, const void* data, size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t sent = ::send(fd, bytes, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return false;
        bytes += sent;
        size -= static_cast<size_t>(sent);
    }
    return true;
}

bool read_all(int fd, void* data, size_t size) {
    char* bytes = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t got = ::read(fd, bytes, size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        bytes += got;
        size -= static_cast<size_t>(got);
    }
    return true;
}

Error errno_error(const std::string& what) {
    return Error{ErrorCode::internal, what + ": " + std::strerror(errno)};
}

}  // namespace hostprobe::probes
