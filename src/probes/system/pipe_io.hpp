// Pipes and whole reads and writes on descriptors, for the system tests and their helpers.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.hpp"
#include "core/unique_fd.hpp"

namespace hostprobe::probes {

// Both ends close-on-exec; each closed when the Pipe goes (or earlier, by hand).
class Pipe {
  public:
    static Result<Pipe> open();
    // A connected pair of Unix stream sockets used one way: writes with send_all() to it never
    // raise SIGPIPE, whatever happened to the reader.
    static Result<Pipe> open_socket_pair();
    int read_end() const { return read_end_.get(); }
    int write_end() const { return write_end_.get(); }
    void close_read() { read_end_.reset(); }
    void close_write() { write_end_.reset(); }

  private:
    Pipe(int read_end, int write_end) : read_end_(read_end), write_end_(write_end) {}
    core::UniqueFd read_end_;
    core::UniqueFd write_end_;
};

// Loop over short transfers and EINTR; false on an error or the end of the input.
bool write_all(int fd, const void* data, size_t size);
bool read_all(int fd, void* data, size_t size);
// write_all for a socket, with MSG_NOSIGNAL: a reader that is gone is an error, not a signal.
bool send_all(int fd, const void* data, size_t size);

// "what: strerror(errno)" as an internal error.
Error errno_error(const std::string& what);

}  // namespace hostprobe::probes
