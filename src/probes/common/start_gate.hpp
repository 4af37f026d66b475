// How the threads of one measurement start together: each counts down `ready` once set up and
// waits for `go`; the coordinator then publishes the deadline and opens the gate, so set-up is
// never timed and every thread sees the same start.
#pragma once

#include <atomic>
#include <cstdint>
#include <latch>

namespace hostprobe::probes {

struct StartGate {
    std::latch ready;
    std::latch go{1};
    std::atomic<int64_t> start_ns{0};     // steady clock
    std::atomic<int64_t> deadline_ns{0};  // steady clock
    explicit StartGate(std::ptrdiff_t threads) : ready(threads) {}
};

// Nanoseconds on the steady clock, the one every measurement uses.
int64_t steady_now_ns();

}  // namespace hostprobe::probes
