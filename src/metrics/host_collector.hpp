// Host facts, the ECS task and its cost as Prometheus metrics. The facts are fixed at start-up; the
// cgroup throttling counters and what usage_metrics reads (CPU use, steal, pressure, memory) are
// read at scrape time. A failed read costs only its own metrics, as
// with node_exporter's per-collector success gauge.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "core/sysroot.hpp"
#include "task/task_state.hpp"

namespace hostprobe::metrics {

class HostCollector final : public prometheus::Collectable {
  public:
    // Both must outlive the collector.
    HostCollector(const SysRoot& root, const task::TaskState& facts);
    std::vector<prometheus::MetricFamily> Collect() const override;

    // The CPU flags that matter for hostprobe's probes (crypto and vector units).
    static const std::vector<std::string>& reported_flags();

  private:
    const SysRoot& root_;
    const task::TaskState& facts_;
};

// hostprobe_build_info{version,revision,openssl_version} 1
class BuildInfoCollector final : public prometheus::Collectable {
  public:
    std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace hostprobe::metrics
