// Host facts, the ECS task and its cost as Prometheus metrics. The facts change only when the
// task's facts do (ECS metadata arriving), so their text is serialized once per facts snapshot. The
// cgroup throttling counters and what usage_metrics reads (CPU use, steal, pressure, memory) are
// read when /metrics is scraped, at most every 500 ms. A failed read costs only its own metrics, as
// with node_exporter's per-collector success gauge.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/sysroot.hpp"
#include "metrics/text_source.hpp"
#include "task/task_state.hpp"

namespace hostprobe::metrics {

class HostCollector final : public TextSource {
  public:
    // Both must outlive the collector.
    HostCollector(const SysRoot& root, const task::TaskState& facts);

    // Every family, read afresh (no cache), with the hostprobe_scrape_collector_success family:
    // what render() prints.
    std::vector<prometheus::MetricFamily> families() const;
    void render(std::string& out, std::vector<CollectorOutcome>& outcomes) const override;

    // The CPU flags that matter for hostprobe's probes (crypto and vector units).
    static const std::vector<std::string>& reported_flags();

  private:
    // The facts' text, kept while the task's facts are the same snapshot.
    struct FactsText {
        std::shared_ptr<const task::TaskFacts> facts;
        std::shared_ptr<const std::string> text;
    };
    // What the scrape-time sources read, and when: scrapes less than 500 ms apart share one
    // reading (as cAdvisor's housekeeping does), so a scraper hammering /metrics does not turn
    // into a dozen file reads and their serialization per request; Prometheus's scrape interval
    // always gets fresh ones.
    struct Reading {
        std::chrono::steady_clock::time_point at;
        std::shared_ptr<const std::string> text;
        std::vector<CollectorOutcome> outcomes;
    };
    static constexpr std::chrono::milliseconds kReadingMaxAge{500};
    std::shared_ptr<const std::string> facts_text(
        const std::shared_ptr<const task::TaskFacts>& facts) const;
    Reading reading(const host::HostFacts& facts) const;

    const SysRoot& root_;
    const task::TaskState& facts_;
    mutable std::mutex cache_mutex_;
    mutable std::optional<FactsText> facts_text_;
    mutable std::optional<Reading> reading_;
};

// hostprobe_build_info{version,revision,openssl_version} 1
class BuildInfoCollector final : public prometheus::Collectable {
  public:
    std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace hostprobe::metrics
