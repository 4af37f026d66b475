// Seconds on the monotonic clock since a start, as the measurements report durations.
#pragma once

#include <chrono>

namespace hostprobe::core {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hostprobe::core
