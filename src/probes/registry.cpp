#include "probes/registry.hpp"

#include "probes/cipher/cipher_probe.hpp"
#include "probes/cpu/cpu_probe.hpp"
#include "probes/disk/disk_probe.hpp"
#include "probes/files/files_probe.hpp"
#include "probes/system/system_probe.hpp"

namespace hostprobe::probes {

runs::ProbeRegistry builtin_probes(const StoragePolicy& storage, const SystemProbeOptions& system) {
    runs::ProbeRegistry registry;
    registry.add(std::make_unique<CpuProbe>());
    registry.add(std::make_unique<CipherProbe>());
    registry.add(std::make_unique<DiskProbe>(storage));
    registry.add(std::make_unique<FilesProbe>(storage));
    registry.add(std::make_unique<SystemProbe>(storage, system));
    return registry;
}

}  // namespace hostprobe::probes
