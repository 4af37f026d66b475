// A finished run's text report, kept only when it cannot be made again. The history holds up to
// 100 runs for the agent's life and the text is asked for now and then (?format=text, the CLI):
// a probe renders it again from the result it already keeps (1.4 KB deflated a run less).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runs/probe.hpp"
#include "runs/run.hpp"

namespace hostprobe::runs {

// What a run finishing with `result` and `text` keeps of the text: nothing when the probe
// renders exactly `text` from `result`, else `text`.
std::string text_to_keep(const Probe& probe, const nlohmann::json& result, std::string text);

// The run's text report: the one kept, or the probe's rendering of the result; "" when there is
// neither (a failed run; a probe this build lacks).
std::string run_text(const Run& run, const ProbeRegistry& registry);

}  // namespace hostprobe::runs
