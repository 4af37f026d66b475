// Probe `cpu`: host identification on request (what GET /v1/host shows, collected afresh).
#pragma once

#include "runs/probe.hpp"

namespace hostprobe::probes {

class CpuProbe final : public runs::Probe {
  public:
    std::string name() const override { return "cpu"; }
    std::string description() const override {
        return "CPU, topology, caches, hypervisor, cgroup limits and CPU budget, read afresh (like "
               "lscpu)";
    }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return false; }
    double expected_seconds(const nlohmann::json&) const override { return 0.1; }
    Result<runs::ProbeOutcome> run(const runs::ProbeContext& context,
                                   const nlohmann::json& params) const override;
    std::vector<prometheus::MetricFamily> result_metrics(const nlohmann::json&,
                                                         double) const override {
        return {};  // the host metrics are exported all the time
    }

  private:
    runs::ParamTable params_;
};

}  // namespace hostprobe::probes
