#include "probes/registry.hpp"

#include "probes/cipher/cipher_probe.hpp"
#include "probes/cpu/cpu_probe.hpp"

namespace hostprobe::probes {

runs::ProbeRegistry builtin_probes() {
    runs::ProbeRegistry registry;
    registry.add(std::make_unique<CpuProbe>());
    registry.add(std::make_unique<CipherProbe>());
    return registry;
}

}  // namespace hostprobe::probes
