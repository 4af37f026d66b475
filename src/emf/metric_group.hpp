// What one EMF document reports: dimension values (name -> value) and metrics (name, unit,
// value). A probe's result becomes a list of groups, one per combination of its own dimensions
// (cipher x block size x threads, disk direction, files operation, system test x copies).
#pragma once

#include <string>
#include <vector>

#include "emf/units.hpp"

namespace hostprobe::emf {

struct Dimension {
    std::string name;
    std::string value;
};

struct Metric {
    std::string name;
    Unit unit = Unit::none;
    double value = 0;
};

struct MetricGroup {
    std::vector<Dimension> dimensions;  // the probe's own, in the order they are set
    std::vector<Metric> metrics;

    // A metric value must be a number: NaN and infinities (which JSON cannot hold) are left out.
    void add(std::string name, Unit unit, double value);
};

}  // namespace hostprobe::emf
