// The fair scheduler's time slice for the calling thread (Linux 6.12+ EEVDF "custom slice",
// sched_setattr's sched_runtime for SCHED_OTHER). A thread with a shorter slice gets an earlier
// virtual deadline when it wakes, so it preempts a busy thread of lower niceness at once instead
// of after that thread's slice: the HTTP threads answer /metrics while the measuring threads hold
// every CPU. No privilege is needed; threads created afterwards inherit it. Older kernels ignore
// the value; a refusal (seccomp) only leaves the default, so both calls report and never fail.
#pragma once

#include <chrono>

namespace hostprobe {

// The shortest slice the kernel accepts is 0.1 ms; its default is 0.7-3 ms.
inline constexpr std::chrono::microseconds kResponsiveSlice{100};

// True when the kernel took it (not proof that it honours it: before 6.12 it is ignored).
bool request_scheduler_slice(std::chrono::microseconds slice);
// Back to the kernel's default slice (for the measuring threads), keeping the thread's niceness.
bool restore_default_scheduler_slice();
// The calling thread's slice as the kernel reports it (its custom or default slice); zero where
// the kernel (before 6.12) reports none.
std::chrono::nanoseconds current_scheduler_slice();

}  // namespace hostprobe
