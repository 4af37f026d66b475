// One disk job: a thread with its own file, laid out first with non-repeating random data, then
// timed I/O like fio's (psync: pread/pwrite; io_uring: up to iodepth in flight), block-aligned
// offsets (sequential, or uniform random as with norandommap), latency in fio's histogram.
#pragma once

#include <atomic>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "probes/common/start_gate.hpp"
#include "probes/disk/second_latencies.hpp"
#include "probes/storage/latency_histogram.hpp"

namespace hostprobe::probes {

enum class RwPattern { read, write, randread, randwrite, randrw };
enum class IoEngineKind { psync, io_uring };

Result<RwPattern> parse_rw(const std::string& text);
bool io_uring_supported();  // built with liburing

struct DiskJobOptions {
    RwPattern rw = RwPattern::randread;
    unsigned rwmixread = 50;  // percent of reads for randrw
    uint64_t block = 16384;
    uint64_t file_size = 256ull << 20;
    double runtime_seconds = 30;
    bool time_based = true;
    double ramp_seconds = 0;
    bool direct = true;
    unsigned fsync_every = 0;  // fdatasync after every N writes; 0 never
    IoEngineKind engine = IoEngineKind::psync;
    unsigned iodepth = 1;
    uint64_t seed = 1;
};

struct DirectionStats {
    LatencyHistogram clat;
    uint64_t ios = 0;
    uint64_t bytes = 0;
    void merge(const DirectionStats& other);
};

struct DiskJobResult {
    DirectionStats read;
    DirectionStats write;
    double runtime_seconds = 0;            // the measured part, after ramp_time
    std::vector<uint64_t> ios_per_second;  // I/Os completed in each second of the measured part
    double usr_seconds = 0;
    double sys_seconds = 0;
    bool partial = false;  // stopped early by the stop token
    std::string error;     // empty when it worked
    // The most I/Os io_uring had submitted and not yet completed at once (the queue depth it
    // reached); 0 with psync.
    unsigned max_in_flight = 0;
};

// Progress the coordinator reads while jobs work.
struct DiskProgress {
    std::atomic<uint64_t> laid_out_bytes{0};
    std::atomic<uint64_t> measured_ios{0};
};

// Where job `job` hands over each second's latencies (shared by the jobs of a run).
struct SecondLatencySink {
    SecondLatencies& seconds;
    unsigned job = 0;
};

// Lays out `fd` (already created), waits at the gate, measures until the gate's deadline, the
// I/O count of a non-time-based run, or the stop token.
DiskJobResult run_disk_job(const DiskJobOptions& options, int fd, StartGate& gate,
                           DiskProgress& progress, SecondLatencySink sink, std::stop_token stop);

}  // namespace hostprobe::probes
