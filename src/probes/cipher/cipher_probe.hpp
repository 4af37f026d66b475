// Probe `cipher`: `openssl speed -evp` done right under a CPU quota. Measures EVP throughput in
// worker threads in wall-clock AND CPU time, so CFS throttling shows instead of hiding.
#pragma once

#include "probes/cipher/cipher_result.hpp"
#include "runs/typed_probe.hpp"

namespace hostprobe::probes {

class CipherProbe final : public runs::TypedProbe<CipherResult> {
  public:
    CipherProbe();
    std::string name() const override { return "cipher"; }
    std::string description() const override {
        return "cipher throughput with OpenSSL EVP, in wall-clock and CPU time (like openssl speed "
               "-evp)";
    }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return true; }
    Status check(const nlohmann::json& params) const override;
    double expected_seconds(const nlohmann::json& params) const override;
    std::vector<CipherResult> result_examples() const override { return cipher_result_examples(); }

  protected:
    Result<CipherResult> measure(const runs::ProbeContext& context,
                                 const nlohmann::json& params) const override;
    std::string text_report(const CipherResult& result) const override;
    std::vector<prometheus::MetricFamily> metrics(const CipherResult& result,
                                                  double finished_unix_seconds) const override;

  private:
    runs::ParamTable params_;
};

// Whether wall-clock throughput fell more than 10% below the CPU-time figure, and why.
struct ThrottleVerdict {
    double wall_to_cpu = 1;
    bool throttled = false;
    std::string explanation;
};
struct ThrottleEvidence {
    double wall_to_cpu = 1;
    std::optional<double> quota_cores;
    std::optional<uint64_t> periods;
    std::optional<uint64_t> throttled_periods;
    std::optional<double> throttled_seconds;
    std::optional<double> steal_seconds;
    double wall_seconds = 0;
    size_t threads = 1;
    uint32_t visible_cpus = 1;
};
ThrottleVerdict judge_throttling(const ThrottleEvidence& evidence);

}  // namespace hostprobe::probes
