// Probe `cpu`: host identification on request (what GET /v1/host shows, collected afresh).
#pragma once

#include "host/host_facts.hpp"
#include "runs/typed_probe.hpp"

namespace hostprobe::probes {

// The facts as collected; their JSON is GET /v1/host's. Never read back: the host metrics are
// exported all the time, so a cpu run has no result metrics.
struct CpuResult {
    host::HostFacts facts;
};
void to_json(nlohmann::json& out, const CpuResult& result);

class CpuProbe final : public runs::TypedProbe<CpuResult> {
  public:
    std::string name() const override { return "cpu"; }
    std::string description() const override {
        return "CPU, topology, caches, hypervisor, cgroup limits and CPU budget, read afresh (like "
               "lscpu)";
    }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return false; }
    double expected_seconds(const nlohmann::json&) const override { return 0.1; }
    std::vector<CpuResult> result_examples() const override;

  protected:
    Result<CpuResult> measure(const runs::ProbeContext& context,
                              const nlohmann::json& params) const override;
    std::string text_report(const CpuResult& result) const override;

  private:
    runs::ParamTable params_;
};

}  // namespace hostprobe::probes
