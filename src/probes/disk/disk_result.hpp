// The disk probe's result: what one run measured, in the shape of fio's JSON group report (the
// contract of GET /v1/runs/{id} and the journal). The text report and the metrics are written
// over this.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probes/disk/disk_job.hpp"
#include "probes/disk/second_latencies.hpp"
#include "probes/storage/latency_summary.hpp"

namespace hostprobe::probes {

// A number parameter as the run's params held it: an integer when it was the default, a double
// when it was given (the param table normalizes given numbers to doubles). Kept as it was, so
// the echoed job options write `30` or `30.0` exactly as before.
struct ParamNumber {
    double value = 0;
    bool integral = false;
};

// The run's parameters as fio's job options: the normalized params, with the directory
// resolved and the sizes in fio's notation ("16k").
struct DiskJobEcho {
    std::string directory;
    std::string rw = "randread";
    uint64_t rwmixread = 50;
    std::string bs;    // "16k"
    std::string size;  // "256m"
    uint64_t numjobs = 1;
    ParamNumber runtime;
    bool time_based = true;
    ParamNumber ramp_time;
    bool direct = true;
    uint64_t fsync = 0;
    std::string ioengine = "psync";
    uint64_t iodepth = 1;  // as asked; psync runs one I/O at a time whatever it says
};

// One direction of fio's group report.
struct DiskDirection {
    uint64_t io_bytes = 0;
    uint64_t io_kbytes = 0;
    uint64_t bw_bytes = 0;  // bytes per second
    uint64_t bw = 0;        // KiB per second
    double iops = 0;
    uint64_t runtime_ms = 0;  // "runtime"
    uint64_t total_ios = 0;
    LatencySummary clat;  // "clat_ns"
    // The clat p99 of each second of iops_series (null where this direction completed
    // nothing); empty in results from before it and when iops_series is, and then not written.
    LatencySeries clat_p99_series_ns;
};

// A direction's figures over the group's runtime, as fio reports them.
DiskDirection direction_of(const DirectionStats& stats, double runtime_seconds);

struct DiskResult {
    std::string directory;  // the directory used, as opened
    DiskJobEcho job_options;
    DiskDirection read;
    DiskDirection write;
    std::vector<uint64_t> iops_series;  // I/Os completed in each second, all jobs together
    double usr_cpu_seconds = 0;
    double sys_cpu_seconds = 0;
    double layout_seconds = 0;
    double runtime_seconds = 0;  // fio's group runtime: the longest job's
    bool partial = false;        // the run was stopped before its end
};

// How many seconds of a per-second series lie within the run's runtime. A time-based run's last
// entry holds only the few I/Os in flight at the deadline, whose p99 is merely their slowest
// one: summaries (the report's line, the worst-second gauge) leave it out, as fio's histogram
// log does. All of them when the runtime is unknown.
size_t seconds_within_runtime(const DiskResult& result, size_t series_size);

// {"directory", "job_options", "read", "write", "iops_series", "usr_cpu_seconds",
//  "sys_cpu_seconds", "layout_seconds", "runtime_seconds", "partial"}.
void to_json(nlohmann::json& out, const DiskResult& result);
// Each direction also holds "clat_p99_series_ns": [ns or null, ...], one per iops_series entry
// (absent when empty).
// Throws on a result the metrics cannot read (it came from a damaged or foreign journal):
// `directory`, the job options' `rw` and `bs`, and each direction's `iops`, `bw_bytes` and
// `clat_ns` are required; the other fields are read when present, with their types checked,
// and keep their defaults when absent.
void from_json(const nlohmann::json& in, DiskResult& result);

// A default result and a populated one (every list with an entry): what the result's schema in
// GET /openapi.json is read off. A member added to the result is set here too.
std::vector<DiskResult> disk_result_examples();

}  // namespace hostprobe::probes
