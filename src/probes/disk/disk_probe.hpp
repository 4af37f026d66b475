// Probe `disk`: fio-compatible random and sequential I/O (psync or io_uring), with fio's JSON
// fields and text, on storage the operator allowed, without ever harming it.
#pragma once

#include "probes/disk/disk_result.hpp"
#include "probes/probe_setup.hpp"
#include "probes/storage/storage_policy.hpp"
#include "runs/typed_probe.hpp"

namespace hostprobe::probes {

class DiskProbe final : public runs::TypedProbe<DiskResult> {
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
    std::vector<DiskResult> result_examples() const override { return disk_result_examples(); }

    // numjobs × bs × iodepth of buffers may not exceed this: hostprobe shares a small task.
    static constexpr uint64_t kMaxBufferBytes = 64ull << 20;

  protected:
    Result<DiskResult> measure(const runs::ProbeContext& context,
                               const nlohmann::json& params) const override;
    std::string text_report(const DiskResult& result) const override;
    std::vector<prometheus::MetricFamily> metrics(const DiskResult& result,
                                                  double finished_unix_seconds) const override;

  private:
    StoragePolicy policy_;
    runs::ParamTable params_;
};

}  // namespace hostprobe::probes
