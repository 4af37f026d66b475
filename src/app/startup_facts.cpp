#include "app/startup_facts.hpp"

namespace hostprobe::app {

host::HostFacts collect_startup_facts(const SysRoot& root, Logger& log) {
    host::HostFacts facts = host::collect_host_facts(root);
    for (const auto& warning : facts.warnings)
        log.warn(warning);
    return facts;
}

}  // namespace hostprobe::app
