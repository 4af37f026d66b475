// fio's latency object (nanoseconds) as EMF metrics in microseconds: <prefix>Mean, <prefix>P50,
// <prefix>P99, <prefix>P999; none when nothing was timed.
#pragma once

#include <string>

#include "emf/metric_group.hpp"
#include "probes/storage/latency_summary.hpp"

namespace hostprobe::emf {

void add_latency_metrics(const std::string& prefix, const probes::LatencySummary& latency,
                         MetricGroup& group);

}  // namespace hostprobe::emf
