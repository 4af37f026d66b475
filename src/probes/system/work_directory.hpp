// Where the file_copy and shell tests work: a directory of the run's own, made fresh (mode 0700,
// never an existing one) and removed with everything in it when the run ends, however it ends.
#pragma once

#include <string>

#include "core/result.hpp"

namespace hostprobe::probes {

class WorkDirectory {
  public:
    // `parent` is a resolved allowlisted directory: .hostprobe-<run>-system inside it (a name the
    // start-up cleanup of --disk-dir recognizes). Empty: a private one under $TMPDIR or /tmp.
    static Result<WorkDirectory> create(const std::string& parent, const std::string& run_id);
    WorkDirectory(WorkDirectory&& other) noexcept : path_(std::move(other.path_)) {
        other.path_.clear();
    }
    WorkDirectory& operator=(WorkDirectory&&) = delete;
    WorkDirectory(const WorkDirectory&) = delete;
    ~WorkDirectory();
    const std::string& path() const { return path_; }

  private:
    explicit WorkDirectory(std::string path) : path_(std::move(path)) {}
    std::string path_;
};

}  // namespace hostprobe::probes
