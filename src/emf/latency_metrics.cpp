#include "emf/latency_metrics.hpp"

#include <utility>

namespace hostprobe::emf {

void add_latency_metrics(const std::string& prefix, const probes::LatencySummary& latency,
                         MetricGroup& group) {
    constexpr double kNanosecondsPerMicrosecond = 1000.0;
    if (latency.count == 0) return;
    group.add(prefix + "Mean", Unit::microseconds, latency.mean / kNanosecondsPerMicrosecond);
    const std::pair<const char*, double> points[] = {{"P50", 50.0}, {"P99", 99.0}, {"P999", 99.9}};
    for (const auto& [suffix, point] : points)
        group.add(prefix + suffix, Unit::microseconds,
                  static_cast<double>(latency.at_percentile(point)) / kNanosecondsPerMicrosecond);
}

}  // namespace hostprobe::emf
