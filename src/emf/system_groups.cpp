#include <string>

#include "emf/probe_groups.hpp"

namespace hostprobe::emf {

std::vector<MetricGroup> system_groups(const probes::SystemResult& result) {
    std::vector<MetricGroup> groups;
    for (const auto& test : result.tests) {
        MetricGroup group;
        group.dimensions = {{"SystemTest", test.name}, {"Copies", std::to_string(test.copies)}};
        group.add("SystemTestValue", Unit::none, test.value);
        group.add("SystemTestIndex", Unit::none, test.index);
        groups.push_back(std::move(group));
    }
    for (const auto& pass : result.index) {
        if (!pass.score) continue;
        MetricGroup group;
        group.dimensions = {{"SystemTest", "index"}, {"Copies", std::to_string(pass.copies)}};
        group.add("SystemIndexScore", Unit::none, *pass.score);
        groups.push_back(std::move(group));
    }
    return groups;
}

}  // namespace hostprobe::emf
