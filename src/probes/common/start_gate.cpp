#include "probes/common/start_gate.hpp"

#include <chrono>

namespace hostprobe::probes {

int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace hostprobe::probes
