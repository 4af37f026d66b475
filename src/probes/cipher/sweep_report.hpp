// A thread sweep's text report: seed 002's `openssl speed -elapsed -multi N` figures side by
// side, one column per thread count, with the scaling efficiency (wall clock) and the share of
// the CPU-time figure the wall clock got (CPU time), then one line per count.
#pragma once

#include <string>

#include "probes/cipher/thread_sweep.hpp"

namespace hostprobe::probes {

std::string sweep_report(const ThreadSweep& sweep);

}  // namespace hostprobe::probes
