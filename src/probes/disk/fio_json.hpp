// fio's JSON shape for one direction of a group report, and fio's text layout.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "probes/disk/disk_job.hpp"
#include "probes/storage/latency_summary.hpp"  // percentile_key

namespace hostprobe::probes {

// {io_bytes, bw_bytes, iops, runtime (ms), total_ios, clat_ns {min, max, mean, stddev,
//  percentile {"1.000000": ...}, bins {"<ns>": count}}}
nlohmann::json fio_direction_json(const DirectionStats& stats, double runtime_seconds);
// {min, max, mean, stddev, percentile, bins} of a histogram, in nanoseconds.
nlohmann::json clat_json(const LatencyHistogram& histogram);
// The quantiles hostprobe exports (0.5, 0.9, 0.99, 0.999) from a clat JSON, in seconds.
std::vector<std::pair<double, double>> exported_quantiles(const nlohmann::json& clat);

// `read: IOPS=..., BW=...`, `clat (usec): ...` and the percentile block, as fio prints them.
std::string fio_direction_text(const char* name, const nlohmann::json& direction);

}  // namespace hostprobe::probes
