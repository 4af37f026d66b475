#include "probes/system/system_index.hpp"

#include <cmath>

namespace hostprobe::probes {

double index_value(double value, double baseline) {
    return baseline > 0 ? value / baseline * 10.0 : 0.0;
}

std::optional<double> index_score(const std::vector<double>& index_values) {
    double log_sum = 0;
    size_t count = 0;
    for (double value : index_values) {
        if (!(value > 0)) continue;  // a test that did nothing has no logarithm
        log_sum += std::log(value);
        ++count;
    }
    if (count == 0) return std::nullopt;
    return std::exp(log_sum / static_cast<double>(count));
}

}  // namespace hostprobe::probes
