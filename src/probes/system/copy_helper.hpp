// Each copy of a system test runs in a helper process: `hostprobe __system-copy TEST CONTROL_FD
// REPORT_FD DIRECTORY_FD DIRECTORY FILE_PREFIX SHELL PROCESS_LOOPS`. DIRECTORY_FD (-1: none) is the
// work directory, inherited open: the helper works relative to it and DIRECTORY only names it in
// messages, so nothing done to the names above it can redirect the helper's files. Like UnixBench's
// copies, it is a small single-purpose process: what it forks costs what forking a small process
// costs, not what forking the whole agent (its heap, its threads) costs, and a copy that misbehaves
// can be killed alone.
//
// The protocol, over two pipes: the helper writes 'R' on REPORT_FD once it is ready; the agent
// writes the test's duration (int64 ns) on CONTROL_FD once every copy is ready, and the helper
// runs the test from then on; it writes a CopyReport back and exits. SIGTERM makes it stop early
// and report what it has; the end of CONTROL_FD before the duration makes it exit at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

inline constexpr const char* kCopyHelperCommand = "__system-copy";

// What a helper needs besides its pipes.
struct CopyHelperArguments {
    std::string test;
    int directory_fd = -1;  // kept open across the exec
    std::string directory;
    std::string file_prefix;
    std::string shell;
    std::string process_loops;  // hostprobe-process-loops, for execl, spawn and shell
};

std::vector<std::string> copy_helper_command_line(const std::string& program,
                                                  const CopyHelperArguments& arguments,
                                                  int control_fd, int report_fd);

// The report's wire form: fixed fields, then the error text (empty when it succeeded).
std::string encode_copy_report(const Result<CopyCount>& count);
// Nothing until `bytes` holds a whole report.
std::optional<Result<CopyCount>> decode_copy_report(const std::string& bytes);

// When argv is the helper mode: runs the copy and returns the exit code.
std::optional<int> run_copy_helper(int argc, char** argv);

// main()'s first call: the system probe's helper mode (copy).
std::optional<int> run_system_helper(int argc, char** argv);

}  // namespace hostprobe::probes
