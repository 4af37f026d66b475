// What every harness shares: the input as text, a check that crashes loudly (libFuzzer keeps the
// input that broke an invariant, as it does for a sanitizer report), and a scratch sysroot for
// parsers that only read through SysRoot.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hostprobe::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// An invariant the code under test promises; abort() makes libFuzzer save the input.
[[noreturn]] inline void fail(const char* invariant, const std::string& detail) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n%s\n", invariant, detail.c_str());
    std::abort();
}
#define FUZZ_CHECK(condition, detail)                                  \
    do {                                                               \
        if (!(condition)) ::hostprobe::fuzz::fail(#condition, detail); \
    } while (false)

inline std::string fixtures_dir() {
    return HOSTPROBE_FIXTURES_DIR;
}

// Cuts `text` at the first line equal to `separator`: {before, after}; after is empty when the
// separator does not occur.
inline std::pair<std::string_view, std::string_view> split_at_line(std::string_view text,
                                                                   std::string_view separator) {
    size_t at = 0;
    while (at <= text.size()) {
        const size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line == separator) {
            const std::string_view before = text.substr(0, at == 0 ? 0 : at - 1);
            const std::string_view after = end < text.size() ? text.substr(end + 1) : "";
            return {before, after};
        }
        if (end == text.size()) break;
        at = end + 1;
    }
    return {text, std::string_view()};
}

// A directory tree rebuilt for every input: {machine path, content} pairs become files below a
// private temporary directory (on tmpfs when /dev/shm exists, as file I/O dominates otherwise).
class ScratchSysroot {
  public:
    ScratchSysroot() {
        const char* tmpdir = std::getenv("TMPDIR");
        std::string base = tmpdir && *tmpdir ? tmpdir : "/tmp";
        if (!(tmpdir && *tmpdir) && std::filesystem::is_directory("/dev/shm")) base = "/dev/shm";
        std::string pattern = base + "/hostprobe-fuzz-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) fail("mkdtemp", pattern);
        root_ = pattern;
    }
    ~ScratchSysroot() {
        std::error_code ignored;
        std::filesystem::remove_all(root_, ignored);
    }
    ScratchSysroot(const ScratchSysroot&) = delete;
    ScratchSysroot& operator=(const ScratchSysroot&) = delete;

    const std::string& prefix() const { return root_; }

    // Empties the tree and writes `files`; paths must be absolute, without "." or ".."
    // components (the caller filters fuzzed paths), so nothing lands outside the tree.
    void rebuild(const std::vector<std::pair<std::string, std::string>>& files) {
        std::error_code ignored;
        for (const auto& entry : std::filesystem::directory_iterator(root_, ignored))
            std::filesystem::remove_all(entry.path(), ignored);
        for (const auto& [path, content] : files) {
            const std::filesystem::path target = root_ + path;
            std::filesystem::create_directories(target.parent_path(), ignored);
            std::ofstream(target, std::ios::binary)
                .write(content.data(), static_cast<std::streamsize>(content.size()));
        }
    }

  private:
    std::string root_;
};

}  // namespace hostprobe::fuzz
