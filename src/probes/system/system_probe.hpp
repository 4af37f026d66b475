// Probe `system`: UnixBench-style tests (Dhrystone, Whetstone, execl, file copy, pipe, context
// switch, process creation, shell scripts, syscalls) and the System Benchmarks Index Score,
// with 1 copy and with as many copies as the CPU budget has workers, from inside the agent.
#pragma once

#include <optional>
#include <string>

#include "core/owned_children.hpp"
#include "probes/probe_setup.hpp"
#include "probes/storage/storage_policy.hpp"
#include "probes/system/system_result.hpp"
#include "probes/system/work_directory.hpp"
#include "runs/typed_probe.hpp"

namespace hostprobe::probes {

class SystemProbe final : public runs::TypedProbe<SystemResult> {
  public:
    explicit SystemProbe(const ProbeSetup& setup);
    std::string name() const override { return "system"; }
    std::string description() const override {
        return "UnixBench-style tests and index score, 1 copy and the CPU budget's workers "
               "(like UnixBench 6.0.0)";
    }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return true; }
    Status check(const nlohmann::json& params) const override;
    double expected_seconds(const nlohmann::json& params) const override;
    std::vector<SystemResult> result_examples() const override { return system_result_examples(); }

  protected:
    Result<SystemResult> measure(const runs::ProbeContext& context,
                                 const nlohmann::json& params) const override;
    std::string text_report(const SystemResult& result) const override;
    std::vector<prometheus::MetricFamily> metrics(const SystemResult& result,
                                                  double finished_unix_seconds) const override;

  private:
    // Where file_copy and shell work, or why they cannot.
    struct WorkPlace {
        std::optional<std::string> opened;  // the directory opened to work in, for the result
        std::optional<WorkDirectory> directory;
        std::optional<std::string> no_directory;  // both tests are skipped with this
        std::optional<std::string> no_room;       // file_copy is skipped with this
    };
    Result<WorkPlace> prepare_work_directory(const nlohmann::json& params,
                                             const std::vector<size_t>& copies,
                                             const std::string& run_id) const;

    StoragePolicy policy_;
    ProbeSetup setup_;  // its shell, self_exe and owned_children
    runs::ParamTable params_;
};

// The copy counts a run uses: "auto" is 1 and the CPU budget's workers (one entry when that
// is 1; the context's count_or_workers), otherwise the list as given.
std::vector<size_t> system_copies(const nlohmann::json& copies_param,
                                  const runs::ProbeContext& context);

}  // namespace hostprobe::probes
