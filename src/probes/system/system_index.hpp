// UnixBench's index arithmetic: a test's index is its result over the baseline system's, times
// ten (the baseline scores 10.0), and the System Benchmarks Index Score is the geometric mean of
// the index values of one pass.
#pragma once

#include <optional>
#include <vector>

#include "probes/system/system_result.hpp"

namespace hostprobe::probes {

double index_value(double value, double baseline);
// Nothing when there is no positive index to average.
std::optional<double> index_score(const std::vector<double>& index_values);

// Each pass's score over the tests measured with its copy count: one entry per distinct count,
// in the order of the result JSON's keys ("1" < "16" < "2").
std::vector<SystemPassIndex> pass_indexes(const std::vector<SystemTestResult>& tests,
                                          const std::vector<size_t>& copies);
// Whether some pass lacks one of the index's tests (its score is "Partial Only").
bool index_is_partial(const std::vector<SystemPassIndex>& passes);

}  // namespace hostprobe::probes
