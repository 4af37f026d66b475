// The cipher probe's text report in `openssl speed`'s layout: one table for the wall clock
// (what -elapsed prints) and one for CPU time (what openssl speed prints by default).
#pragma once

#include <string>

#include "probes/cipher/cipher_result.hpp"

namespace hostprobe::probes {

std::string speed_report(const CipherResult& result);

}  // namespace hostprobe::probes
