// A probe: one capability that runs on request (cpu identification, cipher throughput, ...).
// Adding a probe is a folder under src/probes and one line in src/probes/registry.cpp
// (docs/ADDING_A_PROBE.md); built-in probes derive from `TypedProbe` (runs/typed_probe.hpp).
#pragma once

#include <prometheus/metric_family.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/sysroot.hpp"
#include "host/host_facts.hpp"
#include "runs/param_table.hpp"

namespace hostprobe::runs {

// What a running probe gets: where to read the machine, what it may use, when to stop, and
// where to say how far it is.
struct ProbeContext {
    const SysRoot& root;
    const host::HostFacts& host;
    std::stop_token stop;
    std::function<void(double)> report_progress;  // 0..1
    std::string run_id;                           // names the files a probe creates

    // The one resolution of an `auto_or_integer` count (threads, copies): "auto" is the CPU
    // budget's workers (at least 1), a number is itself.
    size_t count_or_workers(const nlohmann::json& auto_or_count) const;
};

// A probe stopped by its stop token returns what it has and sets `partial`.
struct ProbeOutcome {
    nlohmann::json result;
    std::string text_report;  // the probe's report in its reference tool's layout
    bool partial = false;
};

class Probe {
  public:
    virtual ~Probe() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual const ParamTable& params() const = 0;
    // Probes that measure the machine never run two at once, so they do not disturb each other.
    virtual bool exclusive() const = 0;
    // Checks that need several params at once, after each was validated on its own.
    virtual Status check(const nlohmann::json& params) const {
        (void)params;
        return Ok{};
    }
    // A rough duration for the normalized params, for Retry-After and progress.
    virtual double expected_seconds(const nlohmann::json& params) const = 0;
    // Errors end the run `failed` with their message; so do exceptions.
    virtual Result<ProbeOutcome> run(const ProbeContext& context,
                                     const nlohmann::json& params) const = 0;
    // Gauges of a finished run's result, which may come from the journal of an earlier
    // version: parse_error when it does not have the shape the gauges need.
    virtual Result<std::vector<prometheus::MetricFamily>> result_metrics(
        const nlohmann::json& result, double finished_unix_seconds) const = 0;
    // The text report of a result, rendered again from its JSON (a finished run's text is not
    // kept when this gives it back: runs/run_text); unavailable when the probe cannot.
    virtual Result<std::string> result_text(const nlohmann::json& result) const {
        (void)result;
        return make_error(ErrorCode::unavailable, name() + " cannot render a result again");
    }
    // A JSON Schema every result of this probe satisfies (GET /openapi.json); by default, any
    // object. TypedProbe derives it from its result struct.
    virtual nlohmann::json result_schema() const { return {{"type", "object"}}; }
};

class ProbeRegistry {
  public:
    void add(std::unique_ptr<Probe> probe);
    const Probe* find(const std::string& name) const;
    std::vector<std::string> names() const;
    const std::vector<std::unique_ptr<Probe>>& probes() const { return probes_; }

  private:
    std::vector<std::unique_ptr<Probe>> probes_;
};

}  // namespace hostprobe::runs
