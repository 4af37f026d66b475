// Probe `files`: the metadata latency that WordPress on EFS feels (many small files created,
// stat'ed, opened and read, unlinked), which fio's data test does not show.
#pragma once

#include "probes/files/files_result.hpp"
#include "probes/probe_setup.hpp"
#include "probes/storage/storage_policy.hpp"
#include "runs/typed_probe.hpp"

namespace hostprobe::probes {

class FilesProbe final : public runs::TypedProbe<FilesResult> {
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
    std::vector<FilesResult> result_examples() const override {
        return files_result_examples(operations());
    }

    // The four operations, in the order they run.
    static const std::vector<std::string>& operations();

  protected:
    Result<FilesResult> measure(const runs::ProbeContext& context,
                                const nlohmann::json& params) const override;
    std::string text_report(const FilesResult& result) const override;
    std::vector<prometheus::MetricFamily> metrics(const FilesResult& result,
                                                  double finished_unix_seconds) const override;

  private:
    StoragePolicy policy_;
    runs::ParamTable params_;
};

}  // namespace hostprobe::probes
