#include "runs/run_text.hpp"

namespace hostprobe::runs {

std::string text_to_keep(const Probe& probe, const nlohmann::json& result, std::string text) {
    if (text.empty() || result.is_null()) return text;
    const auto rendered = probe.result_text(result);
    return rendered && *rendered == text ? std::string() : text;
}

std::string run_text(const Run& run, const ProbeRegistry& registry) {
    if (!run.text_report.empty() || run.result.is_null()) return run.text_report.text();
    const Probe* probe = registry.find(run.probe);
    if (probe == nullptr) return "";
    auto rendered = probe->result_text(run.result.get());
    return rendered ? std::move(rendered).value() : "";
}

}  // namespace hostprobe::runs
