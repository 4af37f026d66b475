// The completion-latency p99 of each second of a disk run, all jobs together (what fio's
// --write_hist_log with log_hist_msec=1000 gives, read with fio's percentile rule; its
// --write_lat_log would give means), in bounded memory: no I/O is kept, only one histogram per
// direction and job for the second a job is completing in, and one merged pair per second still
// open. A job hands its second over when its completions move past it; a second is summed up
// into its p99, and its histograms freed, once every job has moved past it (a job's completions
// never go back in time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "probes/storage/latency_histogram.hpp"

namespace hostprobe::probes {

// Per second: the p99 in nanoseconds, or nullopt where nothing completed.
using LatencySeries = std::vector<std::optional<uint64_t>>;

class SecondLatencies {
  public:
    // Seconds kept open for a job that has completed nothing for that long (one I/O stuck on
    // the device). Past it the oldest open second is summed up without that job's I/Os of it,
    // so a hung job cannot make memory grow with the run: 64 x 2 x 15 KiB at most.
    static constexpr size_t kMaxOpenSeconds = 64;

    explicit SecondLatencies(unsigned jobs);

    // Job `job`'s completions of `second`; it completes nothing before `next_second` from now
    // on (SIZE_MAX: it has finished).
    void hand_over(unsigned job, size_t second, const LatencyHistogram& read,
                   const LatencyHistogram& write, size_t next_second);
    // Job `job` completes nothing more (it stopped before measuring).
    void finish(unsigned job);

    // Once every job has finished: the p99 of each of the first `seconds` seconds.
    LatencySeries read_p99(size_t seconds) const { return padded(read_p99_, seconds); }
    LatencySeries write_p99(size_t seconds) const { return padded(write_p99_, seconds); }
    // Seconds whose histograms are still kept.
    size_t open_seconds() const;

  private:
    struct OpenSecond {
        LatencyHistogram read;
        LatencyHistogram write;
    };

    void advance(unsigned job, size_t next_second);
    void close_before(size_t second);
    void close(size_t second, const OpenSecond& merged);
    static LatencySeries padded(const LatencySeries& series, size_t seconds);

    mutable std::mutex mutex_;
    std::vector<size_t> next_second_;  // per job
    std::map<size_t, std::unique_ptr<OpenSecond>> open_;
    size_t closed_before_ = 0;  // every second before it is summed up
    LatencySeries read_p99_;
    LatencySeries write_p99_;
};

}  // namespace hostprobe::probes
