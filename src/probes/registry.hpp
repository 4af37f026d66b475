// Every probe hostprobe has, registered in one list.
#pragma once

#include "probes/storage/storage_policy.hpp"
#include "probes/system/system_probe.hpp"
#include "runs/probe.hpp"

namespace hostprobe::probes {

// `storage` bounds where the disk, files and system probes may write.
runs::ProbeRegistry builtin_probes(const StoragePolicy& storage,
                                   const SystemProbeOptions& system = {});

}  // namespace hostprobe::probes
