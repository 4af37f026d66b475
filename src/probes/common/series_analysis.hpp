// What a run's series says, in numbers and in words: where a rate changed (throughput that fell
// when CPU credits ran out, or a quota lowered mid-run), and the CFS rhythm of the first seconds
// ("75 of every 100 ms throttled").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "probes/common/run_series.hpp"

namespace hostprobe::probes {

// The one point where a rate changed most: the series split in two stretches whose
// time-weighted means differ by at least 30%, each at least 1 s long.
struct SeriesChange {
    std::string measure;  // "work_per_second" or "cores_used"
    double at_seconds = 0;
    double before = 0;
    double after = 0;
    // Steal (CPUs' worth) and throttled share of periods, before and after, when known.
    std::optional<double> steal_before, steal_after;
    std::optional<double> throttled_before, throttled_after;
    double relative() const;  // (after - before) / before
};

// Work per second when every slice measured the same thing (one phase) and counted work; the
// CPU the task used per second otherwise.
std::optional<SeriesChange> find_series_change(const std::vector<SeriesSlice>& slices);

// The 100 ms slices of the first seconds: how many there were, how many saw throttling, and
// the milliseconds of CPU used and of throttling per 100 ms.
struct ThrottleRhythm {
    size_t slices = 0;
    size_t throttled_slices = 0;
    double cpu_ms_per_100ms = 0;
    double throttled_ms_per_100ms = 0;
};
std::optional<ThrottleRhythm> throttle_rhythm(const std::vector<SeriesSlice>& slices);

// Sentences for the explanation; empty when the series shows nothing worth saying. `work_name`
// says what work is ("throughput").
std::string describe_series(const std::vector<SeriesSlice>& slices, const std::string& work_name);
// One compact line for a text report.
std::string series_summary_line(const std::vector<SeriesSlice>& slices);

nlohmann::json series_change_json(const SeriesChange& change);
SeriesChange series_change_from_json(const nlohmann::json& in);  // throws on a bad shape

// A change with every member set, and one with none of the optional ones: examples for the
// result schemas (core/json_shape).
SeriesChange example_series_change();
SeriesChange example_sparse_series_change();

}  // namespace hostprobe::probes
