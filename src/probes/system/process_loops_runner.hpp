// Starting hostprobe-process-loops (process_loops.c), the small C program that runs the execl,
// spawn and shell tests' loops as UnixBench's own small programs do, and reading its report.
// It is installed beside the agent's binary; without it those tests are skipped with the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

inline constexpr const char* kProcessLoopsProgram = "hostprobe-process-loops";

// The helper beside `self_exe` (a path or /proc/self/exe, resolved): "/usr/local/bin/hostprobe"
// -> "/usr/local/bin/hostprobe-process-loops". Empty when self_exe cannot be resolved.
std::string process_loops_beside(const std::string& self_exe);
// Why the helper at `path` cannot run, if it cannot.
std::optional<std::string> process_loops_unavailable(const std::string& path);

// The helper's report, as process_loops.c writes it.
struct ProcessLoopsReport {
    uint64_t loops = 0;
    double seconds = 0;
    int32_t failed_errno = 0;    // a fork, exec or wait that failed
    int32_t failed_status = -1;  // a looper program that did not exit 0: its wait status
};
static_assert(sizeof(ProcessLoopsReport) == 24);

struct ProcessLoopsRequest {
    std::string mode;                  // "execl", "spawn" or "looper"
    std::vector<std::string> program;  // looper: the absolute path and its arguments
    int working_directory_fd = -1;     // looper: the program starts here (fchdir)
};

// Runs the helper until the environment's deadline; a stop request ends it early (SIGTERM, then
// what it reports). Its environment is PATH (the agent's, or the usual one) and LANG=en_US.utf8
// (what UnixBench's Run sets for every test: sort's speed depends on the locale).
Result<ProcessLoopsReport> run_process_loops(const CopyEnvironment& environment,
                                             const ProcessLoopsRequest& request);

}  // namespace hostprobe::probes
