// Every probe hostprobe has, registered in one list.
#pragma once

#include "probes/storage/storage_policy.hpp"
#include "runs/probe.hpp"

namespace hostprobe::probes {

// `storage` bounds where the disk and files probes may write.
runs::ProbeRegistry builtin_probes(const StoragePolicy& storage);

}  // namespace hostprobe::probes
