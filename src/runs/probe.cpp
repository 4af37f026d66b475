#include "runs/probe.hpp"

#include <algorithm>

namespace hostprobe::runs {

size_t ProbeContext::count_or_workers(const nlohmann::json& auto_or_count) const {
    if (auto_or_count.is_string()) return std::max<size_t>(1, host.cpu_budget.workers);
    return auto_or_count.get<size_t>();
}

void ProbeRegistry::add(std::unique_ptr<Probe> probe) {
    probes_.push_back(std::move(probe));
}

const Probe* ProbeRegistry::find(const std::string& name) const {
    for (const auto& probe : probes_) {
        if (probe->name() == name) return probe.get();
    }
    return nullptr;
}

std::vector<std::string> ProbeRegistry::names() const {
    std::vector<std::string> names;
    for (const auto& probe : probes_)
        names.push_back(probe->name());
    return names;
}

}  // namespace hostprobe::runs
