#include "runs/requested_probes.hpp"

#include "core/strings.hpp"

namespace hostprobe::runs {

Status check_requested_probes(const std::vector<std::string>& names, const nlohmann::json& params,
                              const ProbeRegistry& registry) {
    std::vector<std::string> named = names;
    for (const auto& [probe, probe_params] : params.items())
        named.push_back(probe);
    for (const auto& name : named) {
        const Probe* probe = registry.find(name);
        if (probe == nullptr) {
            return make_error(
                ErrorCode::invalid_argument,
                "unknown probe '" + name + "'; probes: " + join(registry.names(), ", "));
        }
        auto normalized = probe->params().normalize(params.value(name, nlohmann::json::object()));
        if (!normalized)
            return make_error(ErrorCode::invalid_argument,
                              name + ": " + normalized.error().message);
        if (auto checked = probe->check(*normalized); !checked) {
            return make_error(ErrorCode::invalid_argument, name + ": " + checked.error().message);
        }
    }
    return Ok{};
}

}  // namespace hostprobe::runs
