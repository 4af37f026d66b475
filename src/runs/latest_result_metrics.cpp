#include "runs/latest_result_metrics.hpp"

#include <prometheus/text_serializer.h>

#include <sstream>

#include "runs/runner.hpp"

namespace hostprobe::runs {

namespace {

// A result restored from the journal may lack what the probe's gauges read: then the probe has
// no result gauges (nothing, rather than a failed scrape), until its next run succeeds.
std::string serialized(const Probe& probe, const Run& run) {
    try {
        std::ostringstream text;
        prometheus::TextSerializer().Serialize(
            text, probe.result_metrics(run.result.get(), unix_seconds(*run.finished_at)));
        return std::move(text).str();
    } catch (const std::exception&) {
        return std::string();
    }
}

}  // namespace

LatestResultMetrics::LatestResultMetrics(const Runner& runner, const ProbeRegistry& registry)
    : runner_(runner), registry_(registry) {}

void LatestResultMetrics::append_to(std::string& out) const {
    for (const auto& probe : registry_.probes()) {
        const auto run_id = runner_.latest_succeeded_id(probe->name());
        if (!run_id) continue;
        if (const auto text = rendered(*probe, *run_id)) out += *text;
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
    auto text = std::make_shared<const std::string>(serialized(probe, *run));
    std::lock_guard<std::mutex> lock(mutex_);
    by_probe_[probe.name()] = Rendered{run_id, text};
    return text;
}

}  // namespace hostprobe::runs
