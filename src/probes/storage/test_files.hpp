// The files storage probes create: named .hostprobe-<run id>-<job>, created with O_EXCL below a
// directory descriptor (never following a symlink, never overwriting anything), and removed
// whatever happens: at the end, on failure, on cancel and on SIGTERM.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/logger.hpp"
#include "core/result.hpp"
#include "core/unique_fd.hpp"
#include "probes/storage/directory_handle.hpp"

namespace hostprobe::probes {

inline constexpr const char* kTestFilePrefix = ".hostprobe-";

std::string test_file_name(const std::string& run_id, const std::string& suffix);

// Remembers what it created in one directory and removes it all when destroyed.
class TestFiles {
  public:
    explicit TestFiles(const DirectoryHandle& directory) : directory_(directory) {}
    ~TestFiles();
    TestFiles(const TestFiles&) = delete;
    TestFiles& operator=(const TestFiles&) = delete;

    // O_CREAT|O_EXCL|O_NOFOLLOW; `direct` adds O_DIRECT (refused by tmpfs: a clear message).
    Result<core::UniqueFd> create_file(const std::string& name, bool direct);
    // A subdirectory whose entries are removed with it, opened.
    Result<core::UniqueFd> create_directory(const std::string& name);
    void remove_all();

  private:
    const DirectoryHandle& directory_;
    std::vector<std::string> files_;
    std::vector<std::string> directories_;
};

// Removes every entry of the directory `name` below `parent`, then the directory.
// Subdirectories (the system probe's shell work) go too, a few levels deep; symlinks are
// removed, never followed.
void remove_directory_tree(int parent, const std::string& name);

struct TestFileEntry {
    std::string name;
    struct stat info;  // lstat's: a symlink is a symlink
};
// The .hostprobe-* entries of a directory.
std::vector<TestFileEntry> list_test_files(const DirectoryHandle& directory);

// Removes leftovers of killed runs (.hostprobe-* files and directories); returns how many.
size_t remove_stale_test_files(const std::string& directory, Logger& log);

// Fills `size` bytes with a fast pseudo-random stream that never repeats a block, so that
// compressing or deduplicating storage cannot flatter a measurement.
class RandomFill {
  public:
    explicit RandomFill(uint64_t seed);
    void fill(unsigned char* buffer, size_t size);
    uint64_t next();

  private:
    uint64_t state_[4];
};

}  // namespace hostprobe::probes
