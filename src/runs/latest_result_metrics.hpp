// Every probe's result gauges, from its newest succeeded run. A finished result never changes,
// so its text is rendered once per run and kept until a newer run of the probe succeeds:
// scrapes then copy text instead of building and serializing the families each time.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metrics/text_source.hpp"
#include "runs/probe.hpp"

namespace hostprobe::runs {

class Runner;

class LatestResultMetrics final : public metrics::TextSource {
  public:
    LatestResultMetrics(const Runner& runner, const ProbeRegistry& registry);
    // Outcomes `<probe>_result`: 0 when the newest succeeded run's result did not parse.
    void render(std::string& out, std::vector<metrics::CollectorOutcome>& outcomes) const override;

  private:
    std::shared_ptr<const std::string> rendered(const Probe& probe,
                                                const std::string& run_id) const;

    struct Rendered {
        std::string run_id;
        std::shared_ptr<const std::string> text;
    };
    const Runner& runner_;
    const ProbeRegistry& registry_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, Rendered> by_probe_;
    // The text of a result that did not parse: empty, and told apart by its address.
    const std::shared_ptr<const std::string> unparsed_ = std::make_shared<const std::string>();
};

}  // namespace hostprobe::runs
