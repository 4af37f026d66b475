#include "metrics/exposition.hpp"

#include <algorithm>

#include "core/utf8.hpp"
#include "metrics/family_builder.hpp"

namespace hostprobe::metrics {

namespace {

// The text sources' outcomes join the collectors' samples: one family may appear only once.
void add_outcomes(std::vector<prometheus::MetricFamily>& families,
                  const std::vector<CollectorOutcome>& outcomes) {
    if (outcomes.empty()) return;
    FamilyBuilder samples = collector_success_family();
    for (const auto& outcome : outcomes)
        samples.add(outcome.success ? 1 : 0, {{"collector", outcome.collector}});
    auto added = std::move(samples).build();
    auto family = std::find_if(families.begin(), families.end(),
                               [&](const auto& f) { return f.name == added.name; });
    if (family == families.end()) {
        families.push_back(std::move(added));
        return;
    }
    family->metric.insert(family->metric.end(), std::make_move_iterator(added.metric.begin()),
                          std::make_move_iterator(added.metric.end()));
}

}  // namespace

void Exposition::add(std::shared_ptr<prometheus::Collectable> collectable) {
    collectables_.push_back(std::move(collectable));
}

void Exposition::add(std::shared_ptr<const TextSource> source) {
    sources_.push_back(std::move(source));
}

std::string Exposition::render() const {
    std::string sources_text;
    std::vector<CollectorOutcome> outcomes;
    for (const auto& source : sources_)
        source->render(sources_text, outcomes);
    std::vector<prometheus::MetricFamily> families;
    for (const auto& collectable : collectables_) {
        auto collected = collectable->Collect();
        families.insert(families.end(), std::make_move_iterator(collected.begin()),
                        std::make_move_iterator(collected.end()));
    }
    add_outcomes(families, outcomes);
    std::string text = to_text(families);
    text += sources_text;
    // Label values and help come from the host, ECS metadata and paths, and Prometheus refuses
    // the whole page for one byte that is not UTF-8. Every byte >= 0x80 the repair touches lies
    // inside a label value or a help text (names are ASCII, escapes too), so repairing the page
    // repairs each of them, whichever collector or text source wrote it.
    if (!is_valid_utf8(text)) text = valid_utf8(text);
    return text;
}

}  // namespace hostprobe::metrics
