// The cipher probe's result: what one run measured, in the shape of its JSON (the contract of
// GET /v1/runs/{id} and the journal). The text report and the metrics are written over this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/stats.hpp"
#include "host/cgroup.hpp"
#include "host/cpu_budget.hpp"
#include "host/openssl_cpu.hpp"
#include "probes/cipher/cipher_worker.hpp"
#include "probes/cipher/thread_sweep.hpp"
#include "probes/common/run_series.hpp"
#include "probes/common/series_analysis.hpp"

namespace hostprobe::probes {

// How the repetitions of one cell spread, when the table was measured more than once.
struct CipherRepetitions {
    size_t count = 0;
    core::Spread bytes_per_second;
    core::Spread cpu_bytes_per_second;
};

// One cipher and block size (a cell of openssl speed's table): the figures of the repetition
// whose wall-clock rate is the median, with both rates replaced by their medians.
struct CipherCell {
    std::string cipher;
    size_t block_bytes = 0;
    size_t threads = 0;
    double seconds = 0;  // wall-clock span of the threads
    uint64_t ops = 0;
    uint64_t bytes = 0;
    double bytes_per_second = 0;                   // over the wall span: `openssl speed -elapsed`
    double cpu_seconds = 0;                        // summed over threads
    double cpu_bytes_per_second = 0;               // each thread's bytes over its CPU time, summed
    std::optional<CipherRepetitions> repetitions;  // only when repeated more than once
};

// A sustained run (one cipher and block size for up to 30 minutes): the throughput of its first
// and its last stretch, each a minute long (half the run when it is shorter than 2 minutes).
struct SustainedThroughput {
    double window_seconds = 0;
    double first_bytes_per_second = 0;
    double last_bytes_per_second = 0;
};

struct CipherResult {
    std::vector<CipherCell> measurements;  // cipher-major, in the order asked for
    size_t threads = 1;
    double seconds_per_measurement = 0;
    CipherMode mode = CipherMode::stream;
    bool decrypt = false;
    // The change in the cgroup's CFS counters over the run; none when they cannot be read.
    std::optional<host::ThrottlingCounters> throttling;
    std::optional<double> steal_seconds;  // from /proc/stat, over the run
    double wall_to_cpu_ratio = 1;         // median over the cells
    bool throttled = false;
    std::string explanation;
    std::string openssl_version;
    host::CpuBudget cpu_budget;
    bool partial = false;  // the run was stopped before every cell was measured
    // Slice by slice (src/probes/common/run_series.hpp), work counted in bytes; older results
    // have none.
    std::vector<SeriesSlice> series;
    std::optional<SeriesChange> series_change;
    std::optional<SustainedThroughput> sustained;
    // Only when `threads` was a list or "sweep": `measurements` then has every cell at every
    // count, and `threads` is the largest count.
    std::optional<ThreadSweep> thread_sweep;
    // What OpenSSL's CPU dispatch ran with (AES-NI or not); older results have none.
    std::optional<host::OpensslCpu> openssl_cpu;
};

void to_json(nlohmann::json& out, const CipherResult& result);
// Throws on a result the metrics cannot read (it came from a damaged or foreign journal):
// `measurements` with each cell's cipher, block_bytes, threads and both rates are required;
// the other fields are read when present, with their types checked, and keep their defaults
// when absent.
void from_json(const nlohmann::json& in, CipherResult& result);

// A default result and populated ones (every optional set, every list with an entry, a thread
// sweep): what the result's schema in GET /openapi.json is read off. A member added to the
// result is set here too.
std::vector<CipherResult> cipher_result_examples();

}  // namespace hostprobe::probes
