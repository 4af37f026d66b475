#include "probes/disk/disk_result.hpp"

#include <cmath>
#include <stdexcept>

#include "core/json_reads.hpp"
#include "core/result_reads.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

using namespace result_reads;

// No parameter needs more than 2^53 (the param table refuses it), so an integral one converts
// to a double and back exactly.
constexpr int64_t kLargestExact = int64_t{1} << 53;

json param_number_json(const ParamNumber& number) {
    if (number.integral) return static_cast<int64_t>(number.value);
    return number.value;
}

ParamNumber param_number_from(const json& in) {
    if (in.is_number_integer()) {
        const auto integer = integer_or_throw<int64_t>(in);
        if (integer > kLargestExact || integer < -kLargestExact)
            throw std::out_of_range("parameter beyond 2^53: " + in.dump());
        return {static_cast<double>(integer), true};
    }
    return {number_or_throw(in), false};
}

json job_json(const DiskJobEcho& job) {
    return {{"directory", job.directory},
            {"rw", job.rw},
            {"rwmixread", job.rwmixread},
            {"bs", job.bs},
            {"size", job.size},
            {"numjobs", job.numjobs},
            {"runtime", param_number_json(job.runtime)},
            {"time_based", job.time_based},
            {"ramp_time", param_number_json(job.ramp_time)},
            {"direct", job.direct},
            {"fsync", job.fsync},
            {"ioengine", job.ioengine},
            {"iodepth", job.iodepth}};
}

// What the metrics read is required; the rest is read when present.
DiskJobEcho job_from(const json& in) {
    DiskJobEcho job;
    job.rw = in.at("rw").get<std::string>();
    job.bs = in.at("bs").get<std::string>();
    read_if_present(in, "directory", job.directory, as_string);
    read_if_present(in, "rwmixread", job.rwmixread, as_count);
    read_if_present(in, "size", job.size, as_string);
    read_if_present(in, "numjobs", job.numjobs, as_count);
    read_if_present(in, "runtime", job.runtime, param_number_from);
    read_if_present(in, "time_based", job.time_based, as_bool);
    read_if_present(in, "ramp_time", job.ramp_time, param_number_from);
    read_if_present(in, "direct", job.direct, as_bool);
    read_if_present(in, "fsync", job.fsync, as_count);
    read_if_present(in, "ioengine", job.ioengine, as_string);
    read_if_present(in, "iodepth", job.iodepth, as_count);
    return job;
}

json latency_series_json(const LatencySeries& series) {
    json out = json::array();
    for (const auto& p99 : series)
        out.push_back(p99 ? json(*p99) : json(nullptr));
    return out;
}

LatencySeries latency_series_from(const json& in) {
    if (!in.is_array()) throw std::invalid_argument("clat_p99_series_ns is not an array");
    LatencySeries series;
    for (const auto& p99 : in) {
        if (p99.is_null()) {
            series.emplace_back();
        } else {
            series.emplace_back(integer_or_throw<uint64_t>(p99));
        }
    }
    return series;
}

json direction_json(const DiskDirection& direction) {
    json out = {{"io_bytes", direction.io_bytes},   {"io_kbytes", direction.io_kbytes},
                {"bw_bytes", direction.bw_bytes},   {"bw", direction.bw},
                {"iops", direction.iops},           {"runtime", direction.runtime_ms},
                {"total_ios", direction.total_ios}, {"clat_ns", direction.clat}};
    // Absent rather than empty, so a result from before it is written back as it was.
    if (!direction.clat_p99_series_ns.empty())
        out["clat_p99_series_ns"] = latency_series_json(direction.clat_p99_series_ns);
    return out;
}

DiskDirection direction_from(const json& in) {
    DiskDirection direction;
    direction.iops = non_negative_or_throw(in.at("iops"));
    direction.bw_bytes = integer_or_throw<uint64_t>(in.at("bw_bytes"));
    direction.clat = in.at("clat_ns").get<LatencySummary>();
    read_if_present(in, "io_bytes", direction.io_bytes, as_count);
    read_if_present(in, "io_kbytes", direction.io_kbytes, as_count);
    read_if_present(in, "bw", direction.bw, as_count);
    read_if_present(in, "runtime", direction.runtime_ms, as_count);
    read_if_present(in, "total_ios", direction.total_ios, as_count);
    read_if_present(in, "clat_p99_series_ns", direction.clat_p99_series_ns, latency_series_from);
    return direction;
}

}  // namespace

DiskDirection direction_of(const DirectionStats& stats, double runtime_seconds) {
    const double seconds = runtime_seconds > 0 ? runtime_seconds : 1;
    return {.io_bytes = stats.bytes,
            .io_kbytes = stats.bytes / 1024,
            .bw_bytes = static_cast<uint64_t>(static_cast<double>(stats.bytes) / seconds),
            .bw = static_cast<uint64_t>(static_cast<double>(stats.bytes) / seconds / 1024),
            .iops = static_cast<double>(stats.ios) / seconds,
            .runtime_ms = static_cast<uint64_t>(runtime_seconds * 1000),
            .total_ios = stats.ios,
            .clat = summarize(stats.clat)};
}

size_t seconds_within_runtime(const DiskResult& result, size_t series_size) {
    if (!(result.runtime_seconds > 0) || result.runtime_seconds >= static_cast<double>(series_size))
        return series_size;
    return static_cast<size_t>(std::ceil(result.runtime_seconds));
}

void to_json(json& out, const DiskResult& result) {
    out = {{"directory", result.directory},
           {"job_options", job_json(result.job_options)},
           {"read", direction_json(result.read)},
           {"write", direction_json(result.write)},
           {"iops_series", result.iops_series},
           {"usr_cpu_seconds", result.usr_cpu_seconds},
           {"sys_cpu_seconds", result.sys_cpu_seconds},
           {"layout_seconds", result.layout_seconds},
           {"runtime_seconds", result.runtime_seconds},
           {"partial", result.partial}};
}

void from_json(const json& in, DiskResult& result) {
    result = DiskResult{};
    result.directory = in.at("directory").get<std::string>();
    result.job_options = job_from(in.at("job_options"));
    result.read = direction_from(in.at("read"));
    result.write = direction_from(in.at("write"));
    read_if_present(in, "iops_series", result.iops_series, [](const json& value) {
        if (!value.is_array()) throw std::invalid_argument("iops_series is not an array");
        std::vector<uint64_t> series;
        for (const auto& ios : value)
            series.push_back(integer_or_throw<uint64_t>(ios));
        return series;
    });
    read_if_present(in, "usr_cpu_seconds", result.usr_cpu_seconds, as_number);
    read_if_present(in, "sys_cpu_seconds", result.sys_cpu_seconds, as_number);
    read_if_present(in, "layout_seconds", result.layout_seconds, as_seconds);
    read_if_present(in, "runtime_seconds", result.runtime_seconds, as_seconds);
    read_if_present(in, "partial", result.partial, as_bool);
}

std::vector<DiskResult> disk_result_examples() {
    DiskDirection direction{.io_bytes = 4096,
                            .io_kbytes = 4,
                            .bw_bytes = 4096,
                            .bw = 4,
                            .iops = 1.5,
                            .runtime_ms = 1000,
                            .total_ios = 1,
                            .clat = example_latency_summary(),
                            .clat_p99_series_ns = {std::nullopt, 2000}};
    DiskResult full{.directory = "/data",
                    .job_options = DiskJobEcho{.directory = "/data",
                                               .bs = "4k",
                                               .size = "256m",
                                               .runtime = ParamNumber{10, true},
                                               .ramp_time = ParamNumber{0.5, false}},
                    .read = direction,
                    .write = direction,
                    .iops_series = {1, 2},
                    .usr_cpu_seconds = 0.5,
                    .sys_cpu_seconds = 0.5,
                    .layout_seconds = 0.5,
                    .runtime_seconds = 10,
                    .partial = true};
    DiskResult reversed = full;  // a whole ramp_time, a fractional runtime
    reversed.job_options.runtime = ParamNumber{1.5, false};
    reversed.job_options.ramp_time = ParamNumber{1, true};
    return {DiskResult{}, full, reversed};
}

}  // namespace hostprobe::probes
