#include "probes/disk/fio_report.hpp"

#include <algorithm>
#include <cstdio>

#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

// fio's bandwidth: "6241KiB/s (6391kB/s)" style, binary first, decimal in parentheses.
std::string bandwidth(double bytes_per_second) {
    const char* binary[] = {"B/s", "KiB/s", "MiB/s", "GiB/s"};
    const char* decimal[] = {"B/s", "kB/s", "MB/s", "GB/s"};
    double b = bytes_per_second, d = bytes_per_second;
    int bi = 0, di = 0;
    while (b >= 10000 && bi < 3) {
        b /= 1024;
        ++bi;
    }
    while (d >= 10000 && di < 3) {
        d /= 1000;
        ++di;
    }
    char out[96];
    std::snprintf(out, sizeof out, "%.*f%s (%.*f%s)", b < 10 ? 1 : 0, b, binary[bi], d < 10 ? 1 : 0,
                  d, decimal[di]);
    return out;
}

std::string iops_text(double iops) {
    if (iops >= 10000) return format_fixed(iops / 1000, 1) + "k";
    return format_fixed(iops, 0);
}

// "840 ns", "210 µs", "4.1 ms", "1.25 s".
std::string latency_text(uint64_t nanoseconds) {
    const auto value = static_cast<double>(nanoseconds);
    if (value < 1e3) return format_fixed(value, 0) + " ns";
    if (value < 1e6) return format_fixed(value / 1e3, value < 1e4 ? 1 : 0) + " µs";
    if (value < 1e9) return format_fixed(value / 1e6, 1) + " ms";
    return format_fixed(value / 1e9, 2) + " s";
}

// "p99 per second: min 210 µs, median 250 µs, max 4.1 ms (second 7)": the spread of the
// per-second p99 (the median is the lower middle one), and where the worst was (its index in
// iops_series), over the seconds within the runtime. Empty when no second has one.
std::string p99_per_second_text(const LatencySeries& series, size_t seconds) {
    std::vector<uint64_t> values;
    size_t worst_second = 0;
    for (size_t second = 0; second < std::min(seconds, series.size()); ++second) {
        if (!series[second]) continue;
        if (values.empty() || *series[second] > *series[worst_second]) worst_second = second;
        values.push_back(*series[second]);
    }
    if (values.empty()) return "";
    std::sort(values.begin(), values.end());
    return "    clat p99 per second: min " + latency_text(values.front()) + ", median " +
           latency_text(values[(values.size() - 1) / 2]) + ", max " + latency_text(values.back()) +
           " (second " + std::to_string(worst_second) + ")\n";
}

std::string direction_text(const char* name, const DiskDirection& direction,
                           const DiskResult& result) {
    const LatencySummary& clat = direction.clat;
    std::string out = std::string("  ") + name + ": IOPS=" + iops_text(direction.iops) +
                      ", BW=" + bandwidth(static_cast<double>(direction.bw_bytes)) + "(" +
                      format_fixed(static_cast<double>(direction.io_bytes) / (1024 * 1024), 0) +
                      "MiB/" + std::to_string(direction.runtime_ms) + "msec)\n";
    out += "    clat (usec): min=" + format_fixed(static_cast<double>(clat.min) / 1000, 0) +
           ", max=" + format_fixed(static_cast<double>(clat.max) / 1000, 0) +
           ", avg=" + format_fixed(clat.mean / 1000, 2) +
           ", stdev=" + format_fixed(clat.stddev / 1000, 2) + "\n";
    out += "    clat percentiles (usec):\n";
    const auto& points = LatencyHistogram::fio_percentiles();
    for (size_t i = 0; i < points.size(); ++i) {
        const double usec = static_cast<double>(clat.percentiles[i]) / 1000;
        char cell[48];
        std::snprintf(cell, sizeof cell, "%5.2fth=[%5.0f]", points[i], usec);
        out +=
            (i % 4 == 0 ? "     | " : " ") + std::string(cell) + (i + 1 < points.size() ? "," : "");
        if (i % 4 == 3 || i + 1 == points.size()) out += "\n";
    }
    const LatencySeries& p99s = direction.clat_p99_series_ns;
    out += p99_per_second_text(p99s, seconds_within_runtime(result, p99s.size()));
    return out;
}

}  // namespace

std::string fio_report(const DiskResult& result) {
    const DiskJobEcho& options = result.job_options;
    const uint64_t iodepth = options.ioengine == "io_uring" ? options.iodepth : 1;
    std::string out = "hostprobe: (g=0): rw=" + options.rw + ", bs=(R) " + options.bs + "-" +
                      options.bs + ", ioengine=" + options.ioengine +
                      ", iodepth=" + std::to_string(iodepth) + "\n";
    out += "hostprobe: (groupid=0, jobs=" + std::to_string(options.numjobs) + "): err= 0\n";
    if (result.partial) out += "  (partial: the run was cancelled)\n";
    if (result.read.total_ios > 0) out += direction_text("read", result.read, result);
    if (result.write.total_ios > 0) out += direction_text("write", result.write, result);
    char cpu[128];
    std::snprintf(cpu, sizeof cpu, "  cpu          : usr=%.2fs, sys=%.2fs\n",
                  result.usr_cpu_seconds, result.sys_cpu_seconds);
    out += cpu;
    return out;
}

}  // namespace hostprobe::probes
