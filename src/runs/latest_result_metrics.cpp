#include "runs/latest_result_metrics.hpp"

#include <optional>

#include "runs/runner.hpp"

namespace hostprobe::runs {

namespace {

// A result restored from the journal may not parse into the probe's result (an older or damaged
// journal): then that probe alone has no result gauges, and its collector says 0, until its
// next run succeeds.
std::optional<std::string> serialized(const Probe& probe, const Run& run) {
    try {
        auto families = probe.result_metrics(run.result.get(), unix_seconds(*run.finished_at));
        if (!families) return std::nullopt;
        return metrics::to_text(*families);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

LatestResultMetrics::LatestResultMetrics(const Runner& runner, const ProbeRegistry& registry)
    : runner_(runner), registry_(registry) {}

void LatestResultMetrics::render(std::string& out,
                                 std::vector<metrics::CollectorOutcome>& outcomes) const {
    for (const auto& probe : registry_.probes()) {
        const auto run_id = runner_.latest_succeeded_id(probe->name());
        if (!run_id) continue;
        const auto text = rendered(*probe, *run_id);
        if (!text) continue;
        out += *text;
        outcomes.push_back({probe->name() + "_result", text != unparsed_});
    }
}

std::shared_ptr<const std::string> LatestResultMetrics::rendered(const Probe& probe,
                                                                 const std::string& run_id) const {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto cached = by_probe_.find(probe.name());
        if (cached != by_probe_.end() && cached->second.run_id == run_id)
            return cached->second.text;
    }
    // Rendered outside the lock; two scrapes racing here render the same text twice.
    const auto run = runner_.get(run_id);
    if (!run || !run->finished_at) return nullptr;  // gone from the history meanwhile
    auto serialized_text = serialized(probe, *run);
    auto text = serialized_text ? std::make_shared<const std::string>(std::move(*serialized_text))
                                : unparsed_;
    std::lock_guard<std::mutex> lock(mutex_);
    by_probe_[probe.name()] = Rendered{run_id, text};
    return text;
}

}  // namespace hostprobe::runs
