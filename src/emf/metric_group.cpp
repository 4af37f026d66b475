#include "emf/metric_group.hpp"

#include <cmath>

namespace hostprobe::emf {

void MetricGroup::add(std::string name, Unit unit, double value) {
    if (std::isfinite(value)) metrics.push_back({std::move(name), unit, value});
}

}  // namespace hostprobe::emf
