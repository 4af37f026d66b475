#include "metrics/text_source.hpp"

#include <prometheus/text_serializer.h>

#include <sstream>

namespace hostprobe::metrics {

std::string to_text(const std::vector<prometheus::MetricFamily>& families) {
    std::ostringstream text;
    prometheus::TextSerializer().Serialize(text, families);
    return std::move(text).str();
}

std::vector<CollectorOutcome> outcomes_of(const prometheus::MetricFamily& success) {
    std::vector<CollectorOutcome> outcomes;
    for (const auto& sample : success.metric) {
        for (const auto& label : sample.label) {
            if (label.name == "collector")
                outcomes.push_back({label.value, sample.gauge.value != 0});
        }
    }
    return outcomes;
}

}  // namespace hostprobe::metrics
