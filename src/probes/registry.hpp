// Every probe hostprobe has, registered in one list.
#pragma once

#include "runs/probe.hpp"

namespace hostprobe::probes {

runs::ProbeRegistry builtin_probes();

}  // namespace hostprobe::probes
