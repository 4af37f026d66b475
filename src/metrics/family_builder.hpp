// Builds prometheus-cpp MetricFamily values directly, for collectors whose values are read at
// scrape time (cgroup counters) or describe facts (info metrics) rather than being updated.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hostprobe::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class FamilyBuilder {
  public:
    FamilyBuilder(std::string name, std::string help, prometheus::MetricType type);

    FamilyBuilder& add(double value, const Labels& labels = {});
    // For a summary family: quantile -> value, with the count and sum of what was observed.
    FamilyBuilder& add_summary(const Labels& labels, uint64_t count, double sum,
                               const std::vector<std::pair<double, double>>& quantiles);
    bool empty() const { return family_.metric.empty(); }
    prometheus::MetricFamily build() && { return std::move(family_); }

  private:
    prometheus::MetricFamily family_;
};

FamilyBuilder gauge(std::string name, std::string help);
FamilyBuilder counter(std::string name, std::string help);
FamilyBuilder summary(std::string name, std::string help);

// hostprobe_scrape_collector_success, with no samples yet: 1 per collector whose data could be
// read at this scrape, 0 when it could not (node_exporter's per-collector guard).
FamilyBuilder collector_success_family();

// Appends the family unless it has no samples (an absent metric, e.g. an unlimited quota).
void append(std::vector<prometheus::MetricFamily>& out, FamilyBuilder builder);

}  // namespace hostprobe::metrics
