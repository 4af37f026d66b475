#include "probes/disk/fio_report.hpp"

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

std::string direction_text(const char* name, const DiskDirection& direction) {
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
    if (result.read.total_ios > 0) out += direction_text("read", result.read);
    if (result.write.total_ios > 0) out += direction_text("write", result.write);
    char cpu[128];
    std::snprintf(cpu, sizeof cpu, "  cpu          : usr=%.2fs, sys=%.2fs\n",
                  result.usr_cpu_seconds, result.sys_cpu_seconds);
    out += cpu;
    return out;
}

}  // namespace hostprobe::probes
