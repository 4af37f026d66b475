// What happened inside a measuring run, slice by slice: work done, CPU time, CFS throttling and
// steal. 100 ms slices for the first seconds (where CFS periods show), then 1 s, then 10 s for
// long (sustained) runs, so a run of any length keeps a bounded series.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "host/cgroup.hpp"

namespace hostprobe::probes {

// Cumulative counters at one moment of the run; a counter that cannot be read here is empty.
struct SeriesReading {
    double at_seconds = 0;              // since the run began
    std::optional<double> work;         // the probe's own unit (bytes for the cipher probe)
    std::optional<double> cpu_seconds;  // the agent's, with its reaped children's
    std::optional<host::ThrottlingCounters> throttling;
    std::optional<double> steal_seconds;  // on the CPUs of our cpuset
    std::string phase;                    // what the probe was doing ("aes-128-gcm/8192")
};

// One slice: the change of each counter between two readings.
struct SeriesSlice {
    double start_seconds = 0;
    double seconds = 0;
    std::optional<double> work;
    std::optional<double> cpu_seconds;
    std::optional<uint64_t> periods;
    std::optional<uint64_t> throttled_periods;
    std::optional<double> throttled_seconds;
    std::optional<double> steal_seconds;
    std::string phase;  // the phase at the slice's start

    // Per second of the slice; empty when the counter is.
    std::optional<double> work_rate() const;
    std::optional<double> cores_used() const;
    std::optional<double> steal_share() const;  // steal seconds per second of the slice
};

// Where the slice after the one ending at or before `at_seconds` ends: every 100 ms for the
// first 5 s, every second up to 300 s, every 10 s after.
double next_slice_end(double at_seconds);

// Readings in, slices out. Readings come in time order from one thread.
class SeriesBuilder {
  public:
    // At most this many slices are kept (a 30-minute run needs about 500).
    static constexpr size_t kMaxSlices = 1000;

    explicit SeriesBuilder(SeriesReading first);
    // Closes a slice when `reading` reached the current slice's end; false otherwise.
    bool add(const SeriesReading& reading);
    // Closes the last, shorter slice at the run's end (when it holds any time).
    void finish(const SeriesReading& last);
    const std::vector<SeriesSlice>& slices() const { return slices_; }
    double slice_end() const { return slice_end_; }

  private:
    void close(const SeriesReading& reading);

    SeriesReading previous_;
    double slice_end_;
    std::vector<SeriesSlice> slices_;
};

SeriesSlice slice_between(const SeriesReading& from, const SeriesReading& to);

// `work_key` names the work field in the JSON ("bytes"); the other keys are fixed:
// start_seconds, seconds, cpu_seconds, periods, throttled_periods, throttled_seconds,
// steal_seconds, phase. Absent counters are left out.
nlohmann::json series_json(const std::vector<SeriesSlice>& slices, const std::string& work_key);
// Throws (as every result's from_json) on a series of the wrong shape or with more slices than
// kMaxSlices.
std::vector<SeriesSlice> series_from_json(const nlohmann::json& in, const std::string& work_key);

// A slice with every member set, and one with none of the optional ones: examples for the
// result schemas (core/json_shape).
SeriesSlice example_series_slice();
SeriesSlice example_sparse_series_slice();

}  // namespace hostprobe::probes
