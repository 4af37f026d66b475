// A part of /metrics that prints itself in Prometheus' text format, so that it can keep what
// does not change between scrapes instead of building and serializing it again each time.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace hostprobe::metrics {

// Whether one collector's data could be made at this scrape: a sample of
// hostprobe_scrape_collector_success, which Exposition keeps in one family for every part.
struct CollectorOutcome {
    std::string collector;
    bool success = true;
};

class TextSource {
  public:
    virtual ~TextSource() = default;
    // Appends complete families (# HELP, # TYPE and samples) whose names no other part uses, and
    // the outcome of each collector this source stands for, from one reading of its data.
    virtual void render(std::string& out, std::vector<CollectorOutcome>& outcomes) const = 0;
};

// The families in Prometheus' text format (prometheus-cpp's TextSerializer).
std::string to_text(const std::vector<prometheus::MetricFamily>& families);

// The samples of a hostprobe_scrape_collector_success family as outcomes.
std::vector<CollectorOutcome> outcomes_of(const prometheus::MetricFamily& success);

}  // namespace hostprobe::metrics
