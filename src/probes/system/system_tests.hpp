// The tests of the system probe: UnixBench 6.0.0's index tests, each a loop that one copy runs
// until a deadline. Each returns how much it did (loops, KB, ...) and over how long, so that the
// caller can add up the copies' rates as UnixBench does for its parallel pass.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/owned_children.hpp"
#include "core/result.hpp"

namespace hostprobe::probes {

// One line of UnixBench's index (pgms/index.base, the "George" SPARCstation 20-61 = 10.0).
struct SystemTestSpec {
    std::string_view name;      // result and metric label: "file_copy_1024"
    std::string_view selector;  // the `tests` choice that selects it: "file_copy"
    std::string_view title;     // UnixBench's name, for the report
    std::string_view unit;      // lps, MWIPS, KBps, lpm
    double baseline;
};

// In UnixBench's order.
const std::vector<SystemTestSpec>& system_test_specs();
const SystemTestSpec* find_system_test(std::string_view name);
// The `tests` choices: dhrystone, whetstone, execl, file_copy, pipe, ...
std::vector<std::string> system_test_selectors();

// What one copy of a test gets.
struct CopyEnvironment {
    std::stop_token stop;
    std::chrono::steady_clock::time_point deadline;
    core::OwnedChildren* owned_children = nullptr;  // may be null (no PID-1 reaper)
    // file_copy and shell work in the run's work directory, only relative to its descriptor
    // (never by path: a writer could swap a directory above it for a symlink); the path is
    // what messages name.
    int directory_fd = -1;
    std::string directory;
    std::string file_prefix;    // unique per copy: ".hostprobe-<run>-<test>-<copy>"
    std::string shell;          // "/bin/sh"
    std::string self_exe;       // the agent, started as each copy's helper: "/proc/self/exe"
    std::string process_loops;  // hostprobe-process-loops: execl, spawn and shell run in it
};

// What one copy did: `amount` in the numerator of the test's unit (loops, KB, million
// Whetstone instructions; lpm tests count loops and the caller scales), over `seconds`.
struct CopyCount {
    double amount = 0;
    double seconds = 0;
    bool valid = true;  // the kernel's self-check (Dhrystone, Whetstone) held
};

// One copy, set up and waiting to run: set-up (the file copy test writes its source file) is
// done before the copies start together, so it is never timed.
class PreparedCopy {
  public:
    virtual ~PreparedCopy() = default;
    // Runs until the environment's deadline or a stop request.
    virtual Result<CopyCount> run(const CopyEnvironment& environment) = 0;
};

Result<std::unique_ptr<PreparedCopy>> prepare_test_copy(const SystemTestSpec& test,
                                                        const CopyEnvironment& environment);

// The individual loops (system_cpu_tests.cpp, system_io_tests.cpp, system_process_tests.cpp).
CopyCount dhrystone_copy(const CopyEnvironment& environment);
CopyCount whetstone_copy(const CopyEnvironment& environment);
Result<CopyCount> syscall_copy(const CopyEnvironment& environment);
Result<CopyCount> pipe_copy(const CopyEnvironment& environment);
Result<std::unique_ptr<PreparedCopy>> prepare_file_copy(const CopyEnvironment& environment,
                                                        size_t buffer_bytes, size_t max_kilobytes);
Result<CopyCount> spawn_copy(const CopyEnvironment& environment);
Result<CopyCount> context_switch_copy(const CopyEnvironment& environment);
Result<CopyCount> execl_copy(const CopyEnvironment& environment);
Result<CopyCount> shell_copy(const CopyEnvironment& environment, int concurrent);

// Why the shell tests cannot run here (no shell at `shell`), or nothing.
std::optional<std::string> shell_unavailable(const std::string& shell);

// True while neither the deadline has passed nor a stop was asked for.
bool keep_going(const CopyEnvironment& environment);

}  // namespace hostprobe::probes
