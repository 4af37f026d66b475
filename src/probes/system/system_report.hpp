// The system probe's text report, laid out like UnixBench's: per pass, each test's result, then
// the index table and the System Benchmarks Index Score.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hostprobe::probes {

std::string system_report(const nlohmann::json& result);

}  // namespace hostprobe::probes
