#include "runs/run_metrics.hpp"

#include "metrics/family_builder.hpp"
#include "runs/runner.hpp"

namespace hostprobe::runs {

RunMetrics::RunMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      runs_total_(prometheus::BuildCounter()
                      .Name("hostprobe_runs_total")
                      .Help("Finished runs by probe and outcome (succeeded, failed, cancelled).")
                      .Register(*registry_)),
      duration_(prometheus::BuildHistogram()
                    .Name("hostprobe_run_duration_seconds")
                    .Help("How long runs took from start to end.")
                    .Register(*registry_)),
      last_run_(prometheus::BuildGauge()
                    .Name("hostprobe_last_run_timestamp_seconds")
                    .Help("When the last run of a probe with this outcome finished (Unix time).")
                    .Register(*registry_)) {}

void RunMetrics::record_finished(const Run& run) {
    const std::string outcome = to_string(run.state);
    runs_total_.Add({{"probe", run.probe}, {"outcome", outcome}}).Increment();
    if (run.finished_at) {
        last_run_.Add({{"probe", run.probe}, {"outcome", outcome}})
            .Set(unix_seconds(*run.finished_at));
    }
    if (run.started_at && run.finished_at) {
        static const prometheus::Histogram::BucketBoundaries kBuckets = {
            0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800};
        duration_.Add({{"probe", run.probe}}, kBuckets)
            .Observe(std::chrono::duration<double>(*run.finished_at - *run.started_at).count());
    }
}

RunnerCollector::RunnerCollector(const Runner& runner) : runner_(runner) {}

std::vector<prometheus::MetricFamily> RunnerCollector::Collect() const {
    std::vector<prometheus::MetricFamily> out;
    metrics::append(out, metrics::gauge("hostprobe_runs_queued", "Runs waiting in the queue.")
                             .add(static_cast<double>(runner_.queued_count())));
    metrics::append(out, metrics::gauge("hostprobe_runs_running", "Runs executing now.")
                             .add(static_cast<double>(runner_.running_count())));
    return out;
}

}  // namespace hostprobe::runs
