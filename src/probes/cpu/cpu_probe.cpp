#include "probes/cpu/cpu_probe.hpp"

#include "report/host_json.hpp"
#include "report/host_text.hpp"

namespace hostprobe::probes {

Result<runs::ProbeOutcome> CpuProbe::run(const runs::ProbeContext& context,
                                         const nlohmann::json&) const {
    const host::HostFacts facts = host::collect_host_facts(context.root);
    context.report_progress(1.0);
    return runs::ProbeOutcome{report::host_json(facts), report::host_text(facts), false};
}

}  // namespace hostprobe::probes
