// A throw-away directory tree for sysroot tests: files are written relative to its root and the
// whole tree is removed when the object goes away.
#pragma once

#include <filesystem>
#include <string>

namespace hostprobe::testing {

class TempTree {
  public:
    TempTree();
    ~TempTree();
    TempTree(const TempTree&) = delete;
    TempTree& operator=(const TempTree&) = delete;

    const std::string& root() const { return root_; }
    // Writes `content` to root/relative_path, creating parent directories.
    TempTree& write(const std::string& relative_path, const std::string& content);
    TempTree& mkdir(const std::string& relative_path);
    // Copies a file into the tree.
    TempTree& copy(const std::string& source, const std::string& relative_path);

  private:
    std::string root_;
};

// How many entries `directory` holds.
inline size_t entry_count(const std::string& directory) {
    size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory))
        ++count;
    return count;
}

// Whether a disk, files or system run has its working files (".hostprobe-*") in `directory`.
inline bool has_test_files(const std::string& directory) {
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.path().filename().string().rfind(".hostprobe-", 0) == 0) return true;
    }
    return false;
}

}  // namespace hostprobe::testing
