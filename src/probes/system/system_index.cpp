#include "probes/system/system_index.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "probes/system/system_tests.hpp"

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

std::vector<SystemPassIndex> pass_indexes(const std::vector<SystemTestResult>& tests,
                                          const std::vector<size_t>& copies) {
    std::vector<SystemPassIndex> passes;
    for (size_t count : copies) {
        const bool seen = std::any_of(passes.begin(), passes.end(),
                                      [count](const auto& pass) { return pass.copies == count; });
        if (seen) continue;
        std::vector<double> values;
        for (const auto& test : tests) {
            if (test.copies == count) values.push_back(test.index);
        }
        passes.push_back({count, index_score(values), values.size()});
    }
    std::sort(passes.begin(), passes.end(), [](const auto& a, const auto& b) {
        return std::to_string(a.copies) < std::to_string(b.copies);
    });
    return passes;
}

bool index_is_partial(const std::vector<SystemPassIndex>& passes) {
    return std::any_of(passes.begin(), passes.end(),
                       [](const auto& pass) { return pass.tests != system_test_specs().size(); });
}

}  // namespace hostprobe::probes
