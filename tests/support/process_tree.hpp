// Which processes a process has started, from /proc: for tests that check that nothing is left.
#pragma once

#include <sys/types.h>

#include <vector>

namespace hostprobe::testing {

// The children of `pid` (of every thread: the kernel lists them per thread), and with `all`
// their descendants too.
std::vector<pid_t> children_of(pid_t pid, bool all = false);

// Whether `pid` is gone for good: reaped, not even a zombie.
bool process_gone(pid_t pid);

}  // namespace hostprobe::testing
