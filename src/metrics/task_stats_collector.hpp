// Every container of the ECS task, from the last /task/stats snapshot: one family per fact,
// labelled by the container's /task Name (at most 20 per task, so the label is bounded). The
// text is made once per snapshot (every 10 s at most), never per scrape.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ecs/task_stats_reader.hpp"
#include "metrics/text_source.hpp"

namespace hostprobe::metrics {

// The families of one snapshot (what render prints), without the success gauge.
std::vector<prometheus::MetricFamily> task_stats_families(const ecs::TaskStatsSnapshot& snapshot);

class TaskStatsCollector final : public TextSource {
  public:
    explicit TaskStatsCollector(const ecs::TaskStatsSource& source);  // must outlive this
    // Nothing before the first read; then the families and
    // hostprobe_scrape_collector_success{collector="ecs_task_stats"} (0 while the newest read
    // failed: the values are then the last good ones).
    void render(std::string& out, std::vector<CollectorOutcome>& outcomes) const override;

  private:
    const ecs::TaskStatsSource& source_;
    mutable std::mutex mutex_;
    mutable std::shared_ptr<const ecs::TaskStatsSnapshot> rendered_;
    mutable std::shared_ptr<const std::string> text_;
};

}  // namespace hostprobe::metrics
