#include "emf/fleet_dimensions.hpp"

namespace hostprobe::emf {

namespace {

constexpr const char* kUnknownDimension = "none";

std::string or_none(const std::optional<std::string>& value) {
    return value && !value->empty() ? *value : kUnknownDimension;
}

std::string ecs_field(const task::TaskFacts& facts, std::string ecs::TaskMetadata::*field) {
    if (!facts.ecs || ((*facts.ecs).*field).empty()) return kUnknownDimension;
    return (*facts.ecs).*field;
}

std::vector<std::string> followed_by(std::vector<std::string> set,
                                     const std::vector<std::string>& own) {
    set.insert(set.end(), own.begin(), own.end());
    return set;
}

}  // namespace

std::vector<Dimension> fleet_dimensions(const task::TaskFacts& facts) {
    const host::CpuType* cpu = facts.host.default_type();
    return {{"CpuModel", or_none(cpu ? cpu->model_name : std::nullopt)},
            {"Microarchitecture", or_none(facts.host.guess.microarchitecture)},
            {"LaunchType", ecs_field(facts, &ecs::TaskMetadata::launch_type)},
            {"AvailabilityZone", ecs_field(facts, &ecs::TaskMetadata::availability_zone)},
            {"TaskFamily", ecs_field(facts, &ecs::TaskMetadata::family)}};
}

std::vector<std::vector<std::string>> dimension_sets(const std::vector<std::string>& own) {
    return {followed_by({"CpuModel", "Microarchitecture"}, own),
            followed_by(
                {"TaskFamily", "LaunchType", "AvailabilityZone", "CpuModel", "Microarchitecture"},
                own)};
}

}  // namespace hostprobe::emf
