// A part of /metrics that prints itself in Prometheus' text format, so that it can keep what
// does not change between scrapes instead of building and serializing it again each time.
#pragma once

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
    // Appends complete families (# HELP, # TYPE and samples) whose names no other part uses.
    virtual void append_to(std::string& out) const = 0;
    // The outcome of each collector this source stands for; asked before append_to.
    virtual void append_outcomes(std::vector<CollectorOutcome>& outcomes) const { (void)outcomes; }
};

}  // namespace hostprobe::metrics
