// The system probe's text report, laid out like UnixBench's: per pass, each test's result, then
// the index table and the System Benchmarks Index Score.
#pragma once

#include <string>

#include "probes/system/system_result.hpp"

namespace hostprobe::probes {

std::string system_report(const SystemResult& result);

}  // namespace hostprobe::probes
