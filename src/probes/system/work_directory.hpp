// Where the file_copy and shell tests work: a directory of the run's own, made fresh (mode 0700,
// never an existing one) and removed with everything in it when the run ends, however it ends.
#pragma once

#include <string>

#include "core/logger.hpp"
#include "core/result.hpp"

namespace hostprobe::probes {

class WorkDirectory {
  public:
    // `parent` is a resolved allowlisted directory: .hostprobe-<run>-system inside it (a name the
    // start-up cleanup of --disk-dir recognizes). Empty: a private one under private_parent(),
    // locked (flock on a .lock file inside) for as long as it exists.
    static Result<WorkDirectory> create(const std::string& parent, const std::string& run_id);
    // $TMPDIR, or /tmp.
    static std::string private_parent();
    // Removes the private directories that killed runs left in `parent`: ours (same owner) and
    // unlocked, so a live agent sharing /tmp keeps its own. Returns how many.
    static size_t remove_stale(const std::string& parent, Logger& log);

    WorkDirectory(WorkDirectory&& other) noexcept
        : path_(std::move(other.path_)), lock_fd_(other.lock_fd_) {
        other.path_.clear();
        other.lock_fd_ = -1;
    }
    WorkDirectory& operator=(WorkDirectory&&) = delete;
    WorkDirectory(const WorkDirectory&) = delete;
    ~WorkDirectory();
    const std::string& path() const { return path_; }

  private:
    WorkDirectory(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
    std::string path_;
    int lock_fd_ = -1;
};

}  // namespace hostprobe::probes
