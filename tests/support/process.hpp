// Runs the real hostprobe binary for end-to-end tests: spawn with arguments and environment,
// capture stdout/stderr to files, signal, and wait with a deadline.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/temp_tree.hpp"

namespace hostprobe::testing {

struct ExitStatus {
    bool exited = false;  // false: killed by a signal, or still running at the deadline
    int code = -1;
    std::chrono::milliseconds waited{0};
};

class Process {
  public:
    Process(const std::string& binary, const std::vector<std::string>& args,
            const std::map<std::string, std::string>& extra_environment = {});
    ~Process();  // kills the process if it is still running
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    std::string output() const;  // stdout so far
    std::string errors() const;  // stderr so far
    void signal(int number) const;
    ExitStatus wait(std::chrono::milliseconds deadline);
    // Waits until stderr contains the logfmt "listening" line and returns its port.
    std::optional<int> wait_for_port(std::chrono::milliseconds deadline) const;

  private:
    TempTree files_;
    pid_t pid_ = -1;
    bool reaped_ = false;
};

// Runs to completion (with a deadline) and returns the exit status; output via the Process.
struct Completed {
    ExitStatus status;
    std::string output;
    std::string errors;
};
Completed run_to_end(const std::string& binary, const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& extra_environment = {},
                     std::chrono::milliseconds deadline = std::chrono::seconds(20));

}  // namespace hostprobe::testing
