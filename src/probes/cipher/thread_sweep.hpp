// A thread sweep (issue 16): the cipher table measured at several thread counts in one run, as
// seed 002 ran `openssl speed -elapsed -multi N` once per N. Here: which counts a `threads`
// param asks for, how large a sweep may be, and what the figures say about scaling, worked out
// from the measured cells; the result's `thread_sweep` JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "host/cgroup.hpp"
#include "host/cpu_budget.hpp"

namespace hostprobe::probes {

// The thread counts a `threads` param measures: a number or "auto" is one count (today's run);
// a list or "sweep" is a sweep, its counts ascending.
struct ThreadCounts {
    std::vector<size_t> counts;
    bool sweep = false;
};

// The most threads one measurement may start (the `threads` param's maximum).
constexpr size_t kMaxCipherThreads = 256;

// "sweep": 1, 2, 4 ... up to the visible CPUs, and the visible CPU count itself when it is not
// a power of two (6 CPUs: 1, 2, 4, 6); never more than kMaxCipherThreads.
std::vector<size_t> sweep_thread_counts(uint32_t visible_cpus);

// `threads` after the param table checked it: "auto" is `workers`, "sweep" follows
// `visible_cpus`, a list is sorted.
ThreadCounts thread_counts_of(const nlohmann::json& threads, uint32_t workers,
                              uint32_t visible_cpus);

// A sweep multiplies the table by its thread counts; it stays within what one run may cost:
// at most kMaxSweepCells cells (so the gauges stay as few as the largest one-count table's) and
// kMaxSweepSeconds of measuring.
constexpr size_t kMaxSweepCells = 128;
constexpr double kMaxSweepSeconds = 1800;
struct SweepSize {
    size_t ciphers = 0;
    size_t block_sizes = 0;
    size_t repetitions = 1;
    size_t thread_counts = 1;
    double seconds = 0;  // per cell, per thread count, per repetition (as openssl speed's -seconds)
};
Status check_sweep_size(const SweepSize& size);

// Two changes of the CFS counters added up; none when either is missing.
std::optional<host::ThrottlingCounters> added_counters(
    const std::optional<host::ThrottlingCounters>& total,
    const std::optional<host::ThrottlingCounters>& more);

// One cell measured at one thread count, with the cgroup's CFS counters' change while it ran
// (none when they cannot be read).
struct SweepCellFigures {
    std::string cipher;
    size_t block_bytes = 0;
    size_t threads = 0;
    double bytes_per_second = 0;
    double cpu_bytes_per_second = 0;
    std::optional<host::ThrottlingCounters> throttling;
};

// One thread count in one cell's scaling: efficiency is the wall-clock rate at N over N times
// the rate at the sweep's smallest count, times that count (rate at N / (N x rate at 1) when
// the sweep starts at 1). above_budget: N is more than the CPU budget's cores.
struct ScalingStep {
    size_t threads = 0;
    double bytes_per_second = 0;
    double cpu_bytes_per_second = 0;
    double efficiency = 0;
    bool above_budget = false;
    std::optional<host::ThrottlingCounters> throttling;
};
struct CellScaling {
    std::string cipher;
    size_t block_bytes = 0;
    std::vector<ScalingStep> steps;  // ascending thread counts
};

// One thread count over every cell: the median growth of the wall-clock rate from the previous
// count (none for the first) and the CFS counters summed over its cells.
struct ThreadCountSummary {
    size_t threads = 0;
    bool above_budget = false;
    std::optional<double> wall_growth;  // 0.05: 5% more than at the previous count
    double median_efficiency = 0;
    std::optional<host::ThrottlingCounters> throttling;
};

struct ThreadSweep {
    std::vector<size_t> thread_counts;
    double budget_cores = 0;
    std::string budget_source;  // the CPU budget's source: "cgroup" or "cpus"
    std::vector<CellScaling> scaling;
    std::vector<ThreadCountSummary> by_threads;
    // The last count before the wall-clock rate stopped growing (at the next count it gained
    // less than a quarter of the linear gain: under +25% from 1 to 2 threads); none when it grew
    // at every step.
    std::optional<size_t> stops_growing_above;
    std::string explanation;
};

// A growth as a signed whole percentage: "+96%", "-3%", "+0%" (never "-0%").
std::string growth_text(double growth);

// `cells` in the order measured (cipher-major); every cell of the sweep at every count.
ThreadSweep analyse_thread_sweep(const std::vector<SweepCellFigures>& cells,
                                 const std::vector<size_t>& thread_counts,
                                 const host::CpuBudget& budget);

void to_json(nlohmann::json& out, const ThreadSweep& sweep);
// Throws on a sweep of the wrong shape (see cipher_result.hpp's from_json).
void from_json(const nlohmann::json& in, ThreadSweep& sweep);

}  // namespace hostprobe::probes
