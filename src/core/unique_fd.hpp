// One owner for a file descriptor: closed exactly once, when the owner goes, on every path
// (errors, exceptions, early returns). Moves hand the descriptor on; release() gives it away.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace hostprobe::core {

class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    explicit operator bool() const { return valid(); }
    // The descriptor, no longer owned.
    int release() { return std::exchange(fd_, -1); }
    // Closes what is owned (keeping errno, which a caller may be about to report) and owns `fd`.
    void reset(int fd = -1) {
        if (fd_ >= 0) {
            const int saved = errno;
            ::close(fd_);
            errno = saved;
        }
        fd_ = fd;
    }

  private:
    int fd_ = -1;
};

}  // namespace hostprobe::core
