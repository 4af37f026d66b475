#include "emf/units.hpp"

namespace hostprobe::emf {

std::string_view unit_name(Unit unit) {
    switch (unit) {
        case Unit::seconds: return "Seconds";
        case Unit::microseconds: return "Microseconds";
        case Unit::bytes: return "Bytes";
        case Unit::bytes_per_second: return "Bytes/Second";
        case Unit::count: return "Count";
        case Unit::count_per_second: return "Count/Second";
        case Unit::percent: return "Percent";
        case Unit::none: break;
    }
    return "None";
}

}  // namespace hostprobe::emf
