// The base every built-in probe derives from: the probe measures into its own result type (a
// plain struct, like google/benchmark's `Run`), and writes its text report and its metrics over
// that struct; this base does the JSON round trip. A result restored from the journal is parsed
// back into the struct before any metric is made, so a result that does not parse (an older or
// damaged journal) fails only its own probe's metrics.
//
// `ResultType` needs nlohmann's ADL pair `to_json(json&, const ResultType&)` and
// `from_json(const json&, ResultType&)` in its own namespace; a probe with no result metrics may
// leave out from_json (nothing is ever restored). A result with a `bool partial` member marks
// the run as stopped early through it.
#pragma once

#include <concepts>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/json_shape.hpp"
#include "runs/probe.hpp"

namespace hostprobe::runs {

template <typename Measured>
concept has_partial_flag = requires(const Measured& result) {
    { result.partial } -> std::convertible_to<bool>;
};

// Whether a result type can be read back from JSON (has an ADL from_json of its own).
template <typename ResultType>
concept restorable_result = requires(const nlohmann::json& json, ResultType& result) {
    from_json(json, result);
};

template <typename ResultType>
class TypedProbe : public Probe {
  public:
    using ResultT = ResultType;

    Result<ProbeOutcome> run(const ProbeContext& context,
                             const nlohmann::json& params) const final {
        auto measured = measure(context, params);
        if (!measured) return measured.error();
        bool partial = false;
        if constexpr (has_partial_flag<ResultType>) partial = measured->partial;
        std::string text = text_report(*measured);
        return ProbeOutcome{nlohmann::json(*measured), std::move(text), partial};
    }

    Result<std::vector<prometheus::MetricFamily>> result_metrics(
        const nlohmann::json& result, double finished_unix_seconds) const final {
        if constexpr (restorable_result<ResultType>) {
            auto parsed = parse_result(result);
            if (!parsed) return parsed.error();
            return metrics(*parsed, finished_unix_seconds);
        } else {
            (void)result;
            (void)finished_unix_seconds;
            return std::vector<prometheus::MetricFamily>{};
        }
    }

    Result<std::string> result_text(const nlohmann::json& result) const final {
        if constexpr (restorable_result<ResultType>) {
            auto parsed = parse_result(result);
            if (!parsed) return parsed.error();
            return text_report(*parsed);
        } else {
            return Probe::result_text(result);
        }
    }

    // Read off the JSON of result_examples() (core/json_shape): nested lists and objects
    // typed, members absent or null in the default result optional or nullable.
    nlohmann::json result_schema() const override {
        std::vector<nlohmann::json> examples;
        for (const auto& example : result_examples())
            examples.emplace_back(example);
        if (examples.empty()) return Probe::result_schema();
        return schema_of_examples(examples, result_shape_hints());
    }

    // Results that show every member the JSON may have: a default one (what may be absent or
    // null) and populated ones (every optional set, every list and map with an entry). Written
    // beside the result's to_json; without populated ones the document knows the top level only.
    virtual std::vector<ResultType> result_examples() const {
        if constexpr (std::default_initializable<ResultType>) {
            return {ResultType{}};
        } else {
            return {};
        }
    }
    // Objects of the result whose members are keys (core/json_shape's ShapeHints).
    virtual ShapeHints result_shape_hints() const { return {}; }

    // The result as the probe's struct; parse_error naming what did not parse.
    Result<ResultType> parse_result(const nlohmann::json& result) const requires
        restorable_result<ResultType> {
        try {
            return result.get<ResultType>();
        } catch (const std::exception& error) {
            return make_error(ErrorCode::parse_error,
                              name() + " result does not parse: " + error.what());
        }
    }

  protected:
    // The measurement itself. `params` are normalized by params() and passed check().
    virtual Result<ResultType> measure(const ProbeContext& context,
                                       const nlohmann::json& params) const = 0;
    // The report in the probe's reference tool's layout.
    virtual std::string text_report(const ResultType& result) const = 0;
    // Gauges of a finished run's result; none by default.
    virtual std::vector<prometheus::MetricFamily> metrics(const ResultType& result,
                                                          double finished_unix_seconds) const {
        (void)result;
        (void)finished_unix_seconds;
        return {};
    }
};

}  // namespace hostprobe::runs
