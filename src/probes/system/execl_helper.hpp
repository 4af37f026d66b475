// The execl test's helper mode: `hostprobe __system-execl FD GENERATION DEADLINE_NS`. Each
// generation execs the next one until the steady clock passes the deadline; the last writes
// how many generations there were (8 bytes) to FD. main() checks for it before anything else,
// so an exec costs what starting the binary costs and nothing more.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace hostprobe::probes {

inline constexpr const char* kExeclHelperCommand = "__system-execl";

struct ExeclArguments {
    int report_fd = -1;
    uint64_t generation = 1;
    int64_t deadline_ns = 0;  // CLOCK_MONOTONIC, which std::chrono::steady_clock reads
};

// The argv of a helper generation, built before a fork (the child may not allocate).
class ExeclCommandLine {
  public:
    ExeclCommandLine(std::string program, const ExeclArguments& arguments);
    ExeclCommandLine(const ExeclCommandLine&) = delete;
    ExeclCommandLine& operator=(const ExeclCommandLine&) = delete;
    const char* path() const { return program_.c_str(); }
    char* const* argv() { return argv_.data(); }

  private:
    std::string program_;
    std::array<std::string, 4> words_;
    std::array<char*, 6> argv_{};  // program, the four words, null
};

// When argv is the helper mode: runs it (execs or reports) and returns the exit code.
std::optional<int> run_execl_helper(int argc, char** argv);

}  // namespace hostprobe::probes
