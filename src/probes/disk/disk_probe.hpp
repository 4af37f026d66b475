// Probe `disk`: fio-compatible random and sequential I/O (psync or io_uring), with fio's JSON
// fields and text, on storage the operator allowed, without ever harming it.
#pragma once

#include "probes/probe_setup.hpp"
#include "probes/storage/storage_policy.hpp"
#include "runs/probe.hpp"

namespace hostprobe::probes {

class DiskProbe final : public runs::Probe {
  public:
    explicit DiskProbe(const ProbeSetup& setup);
    std::string name() const override { return "disk"; }
    std::string description() const override {
        return "storage I/O latency and throughput like fio (psync/io_uring, direct, random or "
               "sequential)";
    }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return true; }
    Status check(const nlohmann::json& params) const override;
    double expected_seconds(const nlohmann::json& params) const override;
    Result<runs::ProbeOutcome> run(const runs::ProbeContext& context,
                                   const nlohmann::json& params) const override;
    Result<std::vector<prometheus::MetricFamily>> result_metrics(
        const nlohmann::json& result, double finished_unix_seconds) const override;

    // numjobs × bs × iodepth of buffers may not exceed this: hostprobe shares a small task.
    static constexpr uint64_t kMaxBufferBytes = 64ull << 20;

  private:
    StoragePolicy policy_;
    runs::ParamTable params_;
};

}  // namespace hostprobe::probes
