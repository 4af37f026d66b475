// An open directory that a run works in: every file below it is created, opened and removed
// relative to its descriptor, so renaming or replacing the path afterwards changes nothing.
#pragma once

#include <string>
#include <utility>

#include "core/result.hpp"
#include "core/unique_fd.hpp"

namespace hostprobe::probes {

class DirectoryHandle {
  public:
    // Opens an operator's path (an allowlist entry at start, a private parent) O_NOFOLLOW.
    static Result<DirectoryHandle> open(const std::string& path);
    // Takes ownership of an open directory descriptor; `path` is what reports name it.
    static DirectoryHandle adopt(core::UniqueFd fd, std::string path) {
        return {std::move(fd), std::move(path)};
    }
    static DirectoryHandle adopt(int fd, std::string path) {
        return adopt(core::UniqueFd(fd), std::move(path));
    }
    DirectoryHandle(DirectoryHandle&& other) noexcept = default;
    DirectoryHandle& operator=(DirectoryHandle&&) = delete;
    DirectoryHandle(const DirectoryHandle&) = delete;
    int fd() const { return fd_.get(); }
    const std::string& path() const { return path_; }

  private:
    DirectoryHandle(core::UniqueFd fd, std::string path)
        : fd_(std::move(fd)), path_(std::move(path)) {}
    core::UniqueFd fd_;
    std::string path_;
};

}  // namespace hostprobe::probes
