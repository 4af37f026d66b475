#include "probes/disk/disk_probe.hpp"

#include <future>
#include <thread>

#include "core/strings.hpp"
#include "core/unique_fd.hpp"
#include "metrics/family_builder.hpp"
#include "probes/disk/fio_report.hpp"
#include "probes/storage/storage_params.hpp"
#include "probes/storage/test_files.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using runs::ParamSpec;
using runs::ParamType;

struct DiskPlan {
    DiskJobOptions job;
    unsigned numjobs = 1;
    std::string directory;
    std::string rw;
};

DiskPlan plan_from(const json& params) {
    DiskPlan plan;
    plan.directory = params["directory"];
    plan.rw = params["rw"];
    plan.numjobs = params["numjobs"];
    DiskJobOptions& job = plan.job;
    job.rw = parse_rw(plan.rw).value();
    job.rwmixread = params["rwmixread"];
    job.block = params["bs"];
    job.file_size = params["size"];
    job.runtime_seconds = params["runtime"];
    job.time_based = params["time_based"];
    job.ramp_seconds = params["ramp_time"];
    job.direct = params["direct"];
    job.fsync_every = params["fsync"];
    job.engine = params["ioengine"] == "io_uring" ? IoEngineKind::io_uring : IoEngineKind::psync;
    job.iodepth = job.engine == IoEngineKind::io_uring ? params["iodepth"].get<unsigned>() : 1;
    return plan;
}

uint64_t test_file_bytes(const DiskPlan& plan) {
    return static_cast<uint64_t>(plan.numjobs) * plan.job.file_size;
}

// What the parameters must satisfy together, apart from the directory.
Status check_plan(const DiskPlan& plan) {
    if (plan.job.engine == IoEngineKind::io_uring && !io_uring_supported()) {
        return make_error(ErrorCode::invalid_argument,
                          "ioengine io_uring is not built in (no liburing); use psync");
    }
    if (plan.job.file_size < plan.job.block || plan.job.file_size % plan.job.block != 0) {
        return make_error(ErrorCode::invalid_argument,
                          "size (" + format_byte_size(plan.job.file_size) +
                              ") must be a whole number of blocks of bs (" +
                              format_byte_size(plan.job.block) + ")");
    }
    if (plan.job.block % 512 != 0) {
        return make_error(ErrorCode::invalid_argument,
                          "bs must be a multiple of 512 bytes (O_DIRECT needs it)");
    }
    const uint64_t buffers =
        static_cast<uint64_t>(plan.numjobs) * plan.job.block * plan.job.iodepth;
    if (buffers > DiskProbe::kMaxBufferBytes) {
        return make_error(ErrorCode::invalid_argument,
                          "numjobs x bs x iodepth would need " + format_byte_size(buffers) +
                              " of buffers; at most " +
                              format_byte_size(DiskProbe::kMaxBufferBytes) +
                              " are allowed, as hostprobe shares its task's memory");
    }
    return Ok{};
}

ParamNumber param_number(const json& value) {
    return {value.get<double>(), value.is_number_integer()};
}

// The normalized params as fio's job options: the directory as opened, sizes as "16k".
DiskJobEcho job_echo(const json& params, const std::string& resolved) {
    return {.directory = resolved,
            .rw = params["rw"],
            .rwmixread = params["rwmixread"],
            .bs = format_byte_size(params["bs"]),
            .size = format_byte_size(params["size"]),
            .numjobs = params["numjobs"],
            .runtime = param_number(params["runtime"]),
            .time_based = params["time_based"],
            .ramp_time = param_number(params["ramp_time"]),
            .direct = params["direct"],
            .fsync = params["fsync"],
            .ioengine = params["ioengine"],
            .iodepth = params["iodepth"]};
}

bool reads(RwPattern rw) {
    return rw == RwPattern::read || rw == RwPattern::randread || rw == RwPattern::randrw;
}
bool writes(RwPattern rw) {
    return rw == RwPattern::write || rw == RwPattern::randwrite || rw == RwPattern::randrw;
}

// The highest p99 of the first `seconds` seconds, if any has one.
std::optional<uint64_t> worst_second_p99(const LatencySeries& series, size_t seconds) {
    std::optional<uint64_t> worst;
    for (size_t second = 0; second < std::min(seconds, series.size()); ++second) {
        if (series[second] && (!worst || *series[second] > *worst)) worst = series[second];
    }
    return worst;
}

}  // namespace

DiskProbe::DiskProbe(const ProbeSetup& setup)
    : policy_(setup.storage),
      params_({
          directory_param(setup.storage),
          ParamSpec{.name = "rw",
                    .type = ParamType::choice,
                    .default_value = "randread",
                    .description = "I/O pattern, as fio's rw",
                    .choices = {"read", "write", "randread", "randwrite", "randrw"}},
          ParamSpec{.name = "rwmixread",
                    .type = ParamType::integer,
                    .default_value = 50,
                    .description = "percent of reads for randrw",
                    .min = 0,
                    .max = 100},
          ParamSpec{.name = "bs",
                    .type = ParamType::byte_size,
                    .default_value = 16384,
                    .description = "block size (k and m suffixes)",
                    .min = 512,
                    .max = 16 << 20,
                    .unit = "bytes"},
          ParamSpec{.name = "size",
                    .type = ParamType::byte_size,
                    .default_value = 256 << 20,
                    .description = "size of each job's file (k, m and g suffixes)",
                    .min = 4096,
                    .max = static_cast<double>(uint64_t{1} << 40),
                    .unit = "bytes"},
          ParamSpec{.name = "numjobs",
                    .type = ParamType::integer,
                    .default_value = 1,
                    .description = "jobs (threads), each with its own file; reported together like "
                                   "--group_reporting",
                    .min = 1,
                    .max = 64},
          ParamSpec{.name = "runtime",
                    .type = ParamType::number,
                    .default_value = 30,
                    .description = "seconds of measurement",
                    .min = 1,
                    .max = policy_.max_runtime_seconds,
                    .unit = "s"},
          ParamSpec{.name = "time_based",
                    .type = ParamType::boolean,
                    .default_value = true,
                    .description =
                        "run for the whole runtime; false stops after one pass of size per job"},
          ParamSpec{.name = "ramp_time",
                    .type = ParamType::number,
                    .default_value = 0,
                    .description = "seconds of I/O before measuring",
                    .min = 0,
                    .max = 600,
                    .unit = "s"},
          ParamSpec{.name = "direct",
                    .type = ParamType::boolean,
                    .default_value = true,
                    .description = "O_DIRECT: bypass the page cache"},
          ParamSpec{.name = "fsync",
                    .type = ParamType::integer,
                    .default_value = 0,
                    .description = "fdatasync after every N writes; 0 never",
                    .min = 0,
                    .max = 1000000},
          ParamSpec{
              .name = "ioengine",
              .type = ParamType::choice,
              .default_value = "psync",
              .description =
                  "psync: pread/pwrite, one I/O at a time per job; io_uring: iodepth in flight",
              .choices = {"psync", "io_uring"}},
          ParamSpec{.name = "iodepth",
                    .type = ParamType::integer,
                    .default_value = 1,
                    .description = "I/Os in flight per job with io_uring",
                    .min = 1,
                    .max = 256},
      }) {}

Status DiskProbe::check(const json& params) const {
    auto directory = open_storage_directory(policy_, params["directory"]);
    if (!directory) return directory.error();
    const DiskPlan plan = plan_from(params);
    if (auto valid = check_plan(plan); !valid) return valid;
    return check_space(policy_, *directory, test_file_bytes(plan));
}

double DiskProbe::expected_seconds(const json& params) const {
    return params["runtime"].get<double>() + params["ramp_time"].get<double>();
}

Result<DiskResult> DiskProbe::measure(const runs::ProbeContext& context, const json& params) const {
    // The directory may have changed since the run was queued: open it again and check
    // everything against what was opened. From here on every file is made relative to this one
    // descriptor, never by path, so swapping a directory of the path changes nothing.
    const DiskPlan plan = plan_from(params);
    auto directory = open_storage_directory(policy_, plan.directory);
    if (!directory) return directory.error();
    if (auto valid = check_plan(plan); !valid) return valid.error();
    if (auto fits = check_space(policy_, *directory, test_file_bytes(plan)); !fits)
        return fits.error();
    const std::string& used = directory->path();
    TestFiles files(*directory);

    std::vector<core::UniqueFd> descriptors;
    for (unsigned job = 0; job < plan.numjobs; ++job) {
        auto fd =
            files.create_file(test_file_name(context.run_id, std::to_string(job)), plan.job.direct);
        if (!fd) return fd.error();
        descriptors.push_back(std::move(*fd));
    }

    StartGate gate(plan.numjobs);
    DiskProgress progress;
    SecondLatencies seconds(plan.numjobs);
    std::vector<std::future<DiskJobResult>> jobs;
    for (unsigned job = 0; job < plan.numjobs; ++job) {
        DiskJobOptions options = plan.job;
        options.seed = std::hash<std::string>{}(context.run_id) + job * 7919;
        const SecondLatencySink sink{seconds, job};
        jobs.push_back(std::async(std::launch::async, [options, fd = descriptors[job].get(), &gate,
                                                       &progress, sink, stop = context.stop] {
            return run_disk_job(options, fd, gate, progress, sink, stop);
        }));
    }

    // Layout: the first 10% of progress.
    const uint64_t layout_total = static_cast<uint64_t>(plan.numjobs) * plan.job.file_size;
    const auto layout_started = std::chrono::steady_clock::now();
    while (!gate.ready.try_wait()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        context.report_progress(0.1 * static_cast<double>(progress.laid_out_bytes) /
                                static_cast<double>(layout_total));
    }
    const double layout_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - layout_started).count();
    const double measure_seconds = plan.job.ramp_seconds + plan.job.runtime_seconds;
    gate.start_ns = steady_now_ns();
    gate.deadline_ns = gate.start_ns + static_cast<int64_t>(measure_seconds * 1e9);
    gate.go.count_down();

    const uint64_t pass_ios =
        static_cast<uint64_t>(plan.numjobs) * (plan.job.file_size / plan.job.block);
    for (auto& job : jobs) {
        while (job.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
            double fraction =
                static_cast<double>(steady_now_ns() - gate.start_ns) / (measure_seconds * 1e9);
            if (!plan.job.time_based) {
                fraction = std::max(fraction, static_cast<double>(progress.measured_ios) /
                                                  static_cast<double>(pass_ios));
            }
            context.report_progress(0.1 + 0.9 * std::min(1.0, fraction));
        }
    }

    DirectionStats read, write;
    DiskResult result;
    std::vector<uint64_t>& series = result.iops_series;
    for (auto& job : jobs) {
        const DiskJobResult measured = job.get();
        if (!measured.error.empty())
            return make_error(ErrorCode::io_error, measured.error + " (" + used + ")");
        read.merge(measured.read);
        write.merge(measured.write);
        // fio's group runtime: the longest job
        result.runtime_seconds = std::max(result.runtime_seconds, measured.runtime_seconds);
        result.usr_cpu_seconds += measured.usr_seconds;
        result.sys_cpu_seconds += measured.sys_seconds;
        result.partial = result.partial || measured.partial;
        if (series.size() < measured.ios_per_second.size())
            series.resize(measured.ios_per_second.size(), 0);
        for (size_t second = 0; second < measured.ios_per_second.size(); ++second)
            series[second] += measured.ios_per_second[second];
    }
    files.remove_all();

    result.directory = used;
    result.job_options = job_echo(params, used);
    result.read = direction_of(read, result.runtime_seconds);
    result.write = direction_of(write, result.runtime_seconds);
    result.read.clat_p99_series_ns = seconds.read_p99(series.size());
    result.write.clat_p99_series_ns = seconds.write_p99(series.size());
    result.layout_seconds = layout_seconds;
    return result;
}

std::string DiskProbe::text_report(const DiskResult& result) const {
    return fio_report(result);
}

std::vector<prometheus::MetricFamily> DiskProbe::metrics(const DiskResult& result, double) const {
    metrics::FamilyBuilder iops =
        metrics::gauge("hostprobe_disk_iops", "I/Os per second of the last completed disk run.");
    metrics::FamilyBuilder bandwidth =
        metrics::gauge("hostprobe_disk_bandwidth_bytes_per_second",
                       "Bytes per second of the last completed disk run.");
    metrics::FamilyBuilder latency =
        metrics::summary("hostprobe_disk_latency_seconds",
                         "Completion latency quantiles of the last completed disk run.");
    metrics::FamilyBuilder worst_second =
        metrics::gauge("hostprobe_disk_latency_p99_worst_second_seconds",
                       "Highest per-second completion latency p99 of the last completed disk run.");
    const DiskJobEcho& options = result.job_options;
    const RwPattern rw = parse_rw(options.rw).value_or(RwPattern::randread);
    const std::pair<const char*, const DiskDirection*> directions[] = {{"read", &result.read},
                                                                       {"write", &result.write}};
    for (const auto& [direction, stats] : directions) {
        const bool used = std::string(direction) == "read" ? reads(rw) : writes(rw);
        if (!used) continue;
        const metrics::Labels labels = {{"directory", result.directory},
                                        {"rw", options.rw},
                                        {"bs", options.bs},
                                        {"direction", direction}};
        iops.add(stats->iops, labels);
        bandwidth.add(static_cast<double>(stats->bw_bytes), labels);
        const LatencySummary& clat = stats->clat;
        latency.add_summary(labels, clat.count, clat.mean * static_cast<double>(clat.count) / 1e9,
                            exported_quantiles(clat));
        const size_t full_seconds =
            seconds_within_runtime(result, stats->clat_p99_series_ns.size());
        if (const auto worst = worst_second_p99(stats->clat_p99_series_ns, full_seconds))
            worst_second.add(static_cast<double>(*worst) / 1e9, labels);
    }
    std::vector<prometheus::MetricFamily> out;
    metrics::append(out, std::move(iops));
    metrics::append(out, std::move(bandwidth));
    metrics::append(out, std::move(latency));
    metrics::append(out, std::move(worst_second));
    return out;
}

}  // namespace hostprobe::probes
