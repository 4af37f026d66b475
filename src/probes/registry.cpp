#include "probes/registry.hpp"

#include "probes/cipher/cipher_probe.hpp"
#include "probes/cpu/cpu_probe.hpp"
#include "probes/disk/disk_probe.hpp"
#include "probes/files/files_probe.hpp"
#include "probes/system/system_probe.hpp"

namespace hostprobe::probes {

runs::ProbeRegistry builtin_probes(const ProbeSetup& setup) {
    runs::ProbeRegistry registry;
    registry.add(make_probe<CpuProbe>(setup));
    registry.add(make_probe<CipherProbe>(setup));
    registry.add(make_probe<DiskProbe>(setup));
    registry.add(make_probe<FilesProbe>(setup));
    registry.add(make_probe<SystemProbe>(setup));
    return registry;
}

}  // namespace hostprobe::probes
