#include "runs/probe.hpp"

namespace hostprobe::runs {

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
