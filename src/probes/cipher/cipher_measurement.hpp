// One cipher measurement: `threads` threads start together on one cipher and block size for a
// fixed time; wall clock is the span of all of them, CPU time is each thread's own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>

#include "core/result.hpp"
#include "probes/cipher/cipher_worker.hpp"

namespace hostprobe::probes {

struct MeasurementSpec {
    std::string cipher;
    size_t block_bytes = 8192;
    size_t threads = 1;
    double seconds = 3;
    CipherMode mode = CipherMode::stream;
    bool decrypt = false;
    std::atomic<uint64_t>* bytes_done = nullptr;  // added to as the threads work (may be null)
};

struct Measurement {
    std::string cipher;
    size_t block_bytes = 0;
    size_t threads = 0;
    double seconds = 0;  // wall-clock span from the first thread's start to the last one's end
    uint64_t ops = 0;
    uint64_t bytes = 0;
    double bytes_per_second = 0;  // bytes over the wall span: `openssl speed -elapsed`
    double cpu_seconds = 0;       // summed over threads
    double cpu_bytes_per_second =
        0;                 // each thread's bytes over its CPU time, summed: `openssl speed`
    bool complete = true;  // false when the stop token cut it short
};

// `on_tick` is called about every 100 ms with the fraction of this measurement done.
Result<Measurement> measure_cipher(const MeasurementSpec& spec, std::stop_token stop,
                                   const std::function<void(double)>& on_tick);

}  // namespace hostprobe::probes
