// A part of /metrics that prints itself in Prometheus' text format, so that it can keep what
// does not change between scrapes instead of building and serializing it again each time.
#pragma once

#include <string>

namespace hostprobe::metrics {

class TextSource {
  public:
    virtual ~TextSource() = default;
    // Appends complete families (# HELP, # TYPE and samples) whose names no other part uses.
    virtual void append_to(std::string& out) const = 0;
};

}  // namespace hostprobe::metrics
