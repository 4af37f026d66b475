// Where the file_copy and shell tests work: a directory of the run's own, made fresh (mode 0700,
// never an existing one) and removed with everything in it when the run ends, however it ends.
// It is reached only through descriptors, never by path: made with mkdirat below the parent
// the run opened, opened O_NOFOLLOW and kept open, handed to the helpers as a descriptor,
// emptied relative to itself and removed relative to the parent. A writer who swaps a
// directory above it for a symlink moves nothing.
#pragma once

#include <string>

#include "core/logger.hpp"
#include "core/result.hpp"
#include "core/unique_fd.hpp"
#include "probes/storage/directory_handle.hpp"

namespace hostprobe::probes {

class WorkDirectory {
  public:
    enum class Kind {
        // .hostprobe-<run>-system, in a directory inside --disk-dir (a name the start-up
        // cleanup of --disk-dir recognizes).
        in_allowed_directory,
        // .hostprobe-<run>-system-XXXXXX under private_parent(), for remove_stale.
        private_directory,
    };

    // Makes the directory in `parent` (opened for the run) and keeps both open. Both kinds
    // hold a flock on a .lock file inside for as long as they exist; the lock file also shows
    // that the directory opened is the one made (see check_made_here).
    static Result<WorkDirectory> create(DirectoryHandle parent, const std::string& run_id,
                                        Kind kind);
    // $TMPDIR, or /tmp.
    static std::string private_parent();
    // private_parent(), resolved like an operator's --disk-dir (its own symlinks followed once),
    // then opened O_NOFOLLOW.
    static Result<DirectoryHandle> open_private_parent();
    // Removes the private directories that killed runs left in `parent`: ours (same owner) and
    // unlocked, so a live agent sharing /tmp keeps its own. Returns how many.
    static size_t remove_stale(const std::string& parent, Logger& log);

    WorkDirectory(WorkDirectory&& other) noexcept;
    WorkDirectory& operator=(WorkDirectory&&) = delete;
    WorkDirectory(const WorkDirectory&) = delete;
    ~WorkDirectory();

    // The directory's descriptor: every file of the run is made relative to it.
    int fd() const { return fd_.get(); }
    // What messages name: the parent's path and the name.
    const std::string& path() const { return path_; }

  private:
    WorkDirectory(DirectoryHandle parent, std::string name);
    Status open_and_lock();

    DirectoryHandle parent_;
    std::string name_;
    std::string path_;
    core::UniqueFd fd_;
    core::UniqueFd lock_fd_;
};

// Whether `directory`, opened by name just after this process made it, is that directory:
// a writer in the parent could have renamed it away and put one of its own there in between.
// Ours has the owner a file we just created in it has (`file`: the filesystem may map owners,
// as an EFS access point does); one of the writer's does not. A forbidden error otherwise.
Status check_made_here(int directory, int file, const std::string& path);

}  // namespace hostprobe::probes
