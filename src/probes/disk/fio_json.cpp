#include "probes/disk/fio_json.hpp"

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

}  // namespace

std::vector<std::pair<double, double>> exported_quantiles(const nlohmann::json& clat) {
    std::vector<std::pair<double, double>> quantiles;
    for (double quantile : {0.5, 0.9, 0.99, 0.999}) {
        quantiles.emplace_back(
            quantile, clat.at("percentile").at(percentile_key(quantile * 100)).get<double>() / 1e9);
    }
    return quantiles;
}

nlohmann::json clat_json(const LatencyHistogram& histogram) {
    nlohmann::json percentile = nlohmann::json::object();
    const auto& points = LatencyHistogram::fio_percentiles();
    const auto values = histogram.percentiles(points);
    for (size_t i = 0; i < points.size(); ++i)
        percentile[percentile_key(points[i])] = values[i];
    nlohmann::json bins = nlohmann::json::object();
    for (const auto& [value, count] : histogram.bins())
        bins[std::to_string(value)] = count;
    return {{"min", histogram.min()},
            {"max", histogram.max()},
            {"mean", histogram.mean()},
            {"stddev", histogram.stddev()},
            {"N", histogram.count()},
            {"percentile", percentile},
            {"bins", bins}};
}

nlohmann::json fio_direction_json(const DirectionStats& stats, double runtime_seconds) {
    const double seconds = runtime_seconds > 0 ? runtime_seconds : 1;
    return {{"io_bytes", stats.bytes},
            {"io_kbytes", stats.bytes / 1024},
            {"bw_bytes", static_cast<uint64_t>(static_cast<double>(stats.bytes) / seconds)},
            {"bw", static_cast<uint64_t>(static_cast<double>(stats.bytes) / seconds / 1024)},
            {"iops", static_cast<double>(stats.ios) / seconds},
            {"runtime", static_cast<uint64_t>(runtime_seconds * 1000)},
            {"total_ios", stats.ios},
            {"clat_ns", clat_json(stats.clat)}};
}

std::string fio_direction_text(const char* name, const nlohmann::json& direction) {
    const auto& clat = direction["clat_ns"];
    std::string out = std::string("  ") + name +
                      ": IOPS=" + iops_text(direction["iops"].get<double>()) +
                      ", BW=" + bandwidth(direction["bw_bytes"].get<double>()) + "(" +
                      format_fixed(direction["io_bytes"].get<double>() / (1024 * 1024), 0) +
                      "MiB/" + std::to_string(direction["runtime"].get<uint64_t>()) + "msec)\n";
    out += "    clat (usec): min=" + format_fixed(clat["min"].get<double>() / 1000, 0) +
           ", max=" + format_fixed(clat["max"].get<double>() / 1000, 0) +
           ", avg=" + format_fixed(clat["mean"].get<double>() / 1000, 2) +
           ", stdev=" + format_fixed(clat["stddev"].get<double>() / 1000, 2) + "\n";
    out += "    clat percentiles (usec):\n";
    const auto& points = LatencyHistogram::fio_percentiles();
    for (size_t i = 0; i < points.size(); ++i) {
        const double usec = clat["percentile"][percentile_key(points[i])].get<double>() / 1000;
        char cell[48];
        std::snprintf(cell, sizeof cell, "%5.2fth=[%5.0f]", points[i], usec);
        out +=
            (i % 4 == 0 ? "     | " : " ") + std::string(cell) + (i + 1 < points.size() ? "," : "");
        if (i % 4 == 3 || i + 1 == points.size()) out += "\n";
    }
    return out;
}

}  // namespace hostprobe::probes
