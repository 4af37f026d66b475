// Metrics about runs: counts, durations, the queue.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <memory>

#include "runs/probe.hpp"
#include "runs/run.hpp"

namespace hostprobe::runs {

class Runner;

// hostprobe_runs_total, hostprobe_run_duration_seconds, hostprobe_last_run_timestamp_seconds,
// updated as runs finish (prometheus-cpp's registry is thread safe).
class RunMetrics {
  public:
    RunMetrics();
    void record_finished(const Run& run);
    std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  private:
    std::shared_ptr<prometheus::Registry> registry_;
    prometheus::Family<prometheus::Counter>& runs_total_;
    prometheus::Family<prometheus::Histogram>& duration_;
    prometheus::Family<prometheus::Gauge>& last_run_;
};

// hostprobe_runs_queued and hostprobe_runs_running, read from the runner at scrape time (the
// result gauges are LatestResultMetrics').
class RunnerCollector final : public prometheus::Collectable {
  public:
    explicit RunnerCollector(const Runner& runner);
    std::vector<prometheus::MetricFamily> Collect() const override;

  private:
    const Runner& runner_;
};

}  // namespace hostprobe::runs
