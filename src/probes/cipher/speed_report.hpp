// The cipher probe's text report in `openssl speed`'s layout: one table for the wall clock
// (what -elapsed prints) and one for CPU time (what openssl speed prints by default).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hostprobe::probes {

// `result` is the cipher probe's result JSON.
std::string speed_report(const nlohmann::json& result);

}  // namespace hostprobe::probes
