// Host facts, the ECS task and its cost as Prometheus metrics. The facts are fixed at start-up; the
// cgroup throttling counters and what usage_metrics reads (CPU use, steal, pressure, memory) are
// read at scrape time. A failed read costs only its own metrics, as
// with node_exporter's per-collector success gauge.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <vector>

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
    // What usage_metrics read, and when: scrapes less than 500 ms apart share one
    // reading (as cAdvisor's housekeeping does), so a scraper hammering /metrics does not turn
    // into a dozen file reads per request; Prometheus's scrape interval always gets fresh ones.
    struct UsageReading {
        std::chrono::steady_clock::time_point at;
        std::vector<prometheus::MetricFamily> families;
        prometheus::MetricFamily success;
    };
    static constexpr std::chrono::milliseconds kUsageMaxAge{500};
    UsageReading usage_reading(const host::HostFacts& facts) const;

    const SysRoot& root_;
    const task::TaskState& facts_;
    mutable std::mutex usage_mutex_;
    mutable std::optional<UsageReading> usage_;
};

// hostprobe_build_info{version,revision,openssl_version} 1
class BuildInfoCollector final : public prometheus::Collectable {
  public:
    std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace hostprobe::metrics
