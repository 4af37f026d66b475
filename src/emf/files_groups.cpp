#include "emf/latency_metrics.hpp"
#include "emf/probe_groups.hpp"

namespace hostprobe::emf {

std::vector<MetricGroup> files_groups(const probes::FilesResult& result) {
    std::vector<MetricGroup> groups;
    for (const auto& [operation, figures] : result.ops) {
        MetricGroup group;
        group.dimensions = {{"FilesOp", operation}};
        group.add("FilesOpsPerSecond", Unit::count_per_second, figures.ops_per_second);
        add_latency_metrics("FilesLatency", figures.latency, group);
        groups.push_back(std::move(group));
    }
    return groups;
}

}  // namespace hostprobe::emf
