// CloudWatch's metric units (MetricDatum's StandardUnit), the only values an EMF MetricDefinition's
// "Unit" may take: AWS's EMF JSON schema holds the same list (tests/emf/emf-schema.json).
#pragma once

#include <string_view>

namespace hostprobe::emf {

enum class Unit {
    seconds,
    microseconds,
    bytes,
    bytes_per_second,
    count,
    count_per_second,
    percent,
    none,
};

// "Seconds", "Bytes/Second", "None"...
std::string_view unit_name(Unit unit);

}  // namespace hostprobe::emf
