#include "emf/latency_metrics.hpp"
#include "emf/probe_groups.hpp"

namespace hostprobe::emf {

namespace {

MetricGroup disk_direction_group(const probes::DiskResult& result, const char* direction,
                                 const probes::DiskDirection& stats) {
    MetricGroup group;
    group.dimensions = {{"Rw", result.job_options.rw},
                        {"BlockSize", result.job_options.bs},
                        {"Direction", direction}};
    group.add("DiskIops", Unit::count_per_second, stats.iops);
    group.add("DiskBytesPerSecond", Unit::bytes_per_second, static_cast<double>(stats.bw_bytes));
    add_latency_metrics("DiskLatency", stats.clat, group);
    return group;
}

bool did_io(const probes::DiskDirection& stats) {
    return stats.total_ios > 0 || stats.io_bytes > 0;
}

}  // namespace

std::vector<MetricGroup> disk_groups(const probes::DiskResult& result) {
    std::vector<MetricGroup> groups;
    if (did_io(result.read)) groups.push_back(disk_direction_group(result, "read", result.read));
    if (did_io(result.write)) groups.push_back(disk_direction_group(result, "write", result.write));
    return groups;
}

}  // namespace hostprobe::emf
