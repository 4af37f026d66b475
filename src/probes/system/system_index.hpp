// UnixBench's index arithmetic: a test's index is its result over the baseline system's, times
// ten (the baseline scores 10.0), and the System Benchmarks Index Score is the geometric mean of
// the index values of one pass.
#pragma once

#include <optional>
#include <vector>

namespace hostprobe::probes {

double index_value(double value, double baseline);
// Nothing when there is no positive index to average.
std::optional<double> index_score(const std::vector<double>& index_values);

}  // namespace hostprobe::probes
