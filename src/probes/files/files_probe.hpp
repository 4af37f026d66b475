// Probe `files`: the metadata latency that WordPress on EFS feels (many small files created,
// stat'ed, opened and read, unlinked), which fio's data test does not show.
#pragma once

#include "probes/probe_setup.hpp"
#include "probes/storage/storage_policy.hpp"
#include "runs/probe.hpp"

namespace hostprobe::probes {

class FilesProbe final : public runs::Probe {
  public:
    explicit FilesProbe(const ProbeSetup& setup);
    std::string name() const override { return "files"; }
    std::string description() const override {
        return "small-file metadata latency: create+write+close, stat, open+read+close, unlink";
    }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return true; }
    Status check(const nlohmann::json& params) const override;
    double expected_seconds(const nlohmann::json& params) const override;
    Result<runs::ProbeOutcome> run(const runs::ProbeContext& context,
                                   const nlohmann::json& params) const override;
    Result<std::vector<prometheus::MetricFamily>> result_metrics(
        const nlohmann::json& result, double finished_unix_seconds) const override;

    // The four operations, in the order they run.
    static const std::vector<std::string>& operations();

  private:
    StoragePolicy policy_;
    runs::ParamTable params_;
};

}  // namespace hostprobe::probes
