// /metrics: gathers every registered collectable and renders Prometheus' text format with
// prometheus-cpp's TextSerializer (no second web server: cpp-httplib serves it), then appends
// the text sources, which print (and cache) their own; every part's collector outcome joins one
// hostprobe_scrape_collector_success family. The page is always valid UTF-8.
#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <vector>

#include "metrics/text_source.hpp"

namespace hostprobe::metrics {

class Exposition {
  public:
    // Register everything before serving starts; rendering may then run on any thread.
    void add(std::shared_ptr<prometheus::Collectable> collectable);
    void add(std::shared_ptr<const TextSource> source);
    std::string render() const;

    static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

  private:
    std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
    std::vector<std::shared_ptr<const TextSource>> sources_;
};

}  // namespace hostprobe::metrics
