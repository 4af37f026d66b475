// Every probe hostprobe has, registered in one list: one line per probe.
#pragma once

#include "probes/probe_setup.hpp"
#include "runs/probe.hpp"

namespace hostprobe::probes {

runs::ProbeRegistry builtin_probes(const ProbeSetup& setup);

}  // namespace hostprobe::probes
