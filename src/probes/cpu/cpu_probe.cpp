#include "probes/cpu/cpu_probe.hpp"

#include "host/host_examples.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"

namespace hostprobe::probes {

void to_json(nlohmann::json& out, const CpuResult& result) {
    out = report::host_json(result.facts);
}

Result<CpuResult> CpuProbe::measure(const runs::ProbeContext& context,
                                    const nlohmann::json&) const {
    CpuResult result{host::collect_host_facts(context.root)};
    context.report_progress(1.0);
    return result;
}

std::vector<CpuResult> CpuProbe::result_examples() const {
    return {CpuResult{}, CpuResult{host::example_host_facts(host::ExampleArchitecture::x86)},
            CpuResult{host::example_host_facts(host::ExampleArchitecture::arm)},
            CpuResult{host::example_sparse_host_facts()}};
}

std::string CpuProbe::text_report(const CpuResult& result) const {
    return report::host_text(result.facts);
}

}  // namespace hostprobe::probes
