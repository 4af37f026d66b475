#include "metrics/family_builder.hpp"

namespace hostprobe::metrics {

FamilyBuilder::FamilyBuilder(std::string name, std::string help, prometheus::MetricType type) {
    family_.name = std::move(name);
    family_.help = std::move(help);
    family_.type = type;
}

FamilyBuilder& FamilyBuilder::add(double value, const Labels& labels) {
    prometheus::ClientMetric metric;
    for (const auto& [name, label_value] : labels) {
        metric.label.push_back({name, label_value});
    }
    if (family_.type == prometheus::MetricType::Counter) {
        metric.counter.value = value;
    } else {
        metric.gauge.value = value;
    }
    family_.metric.push_back(std::move(metric));
    return *this;
}

FamilyBuilder& FamilyBuilder::add_summary(const Labels& labels, uint64_t count, double sum,
                                          const std::vector<std::pair<double, double>>& quantiles) {
    prometheus::ClientMetric metric;
    for (const auto& [name, label_value] : labels)
        metric.label.push_back({name, label_value});
    metric.summary.sample_count = count;
    metric.summary.sample_sum = sum;
    for (const auto& [quantile, value] : quantiles)
        metric.summary.quantile.push_back({quantile, value});
    family_.metric.push_back(std::move(metric));
    return *this;
}

FamilyBuilder summary(std::string name, std::string help) {
    return FamilyBuilder(std::move(name), std::move(help), prometheus::MetricType::Summary);
}

FamilyBuilder gauge(std::string name, std::string help) {
    return FamilyBuilder(std::move(name), std::move(help), prometheus::MetricType::Gauge);
}

FamilyBuilder counter(std::string name, std::string help) {
    return FamilyBuilder(std::move(name), std::move(help), prometheus::MetricType::Counter);
}

FamilyBuilder collector_success_family() {
    return gauge("hostprobe_scrape_collector_success",
                 "Whether a collector's data could be read at scrape time.");
}

void append(std::vector<prometheus::MetricFamily>& out, FamilyBuilder builder) {
    if (!builder.empty()) out.push_back(std::move(builder).build());
}

}  // namespace hostprobe::metrics
