// What the typed-result tests compare: a JSON document's types, a probe's gauges as text, and a
// probe's run from the golden journal (written by the code before the typed results).
#pragma once

#include <doctest/doctest.h>
#include <prometheus/metric_family.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/paths.hpp"

namespace hostprobe::testing {

// Each value's JSON type, recursively: an integer must stay an integer, a null a null.
inline std::string json_type_shape(const nlohmann::json& value) {
    if (value.is_object()) {
        std::string out = "{";
        for (const auto& [key, member] : value.items())
            out += key + ":" + json_type_shape(member) + ",";
        return out + "}";
    }
    if (value.is_array()) {
        std::string out = "[";
        for (const auto& element : value)
            out += json_type_shape(element) + ",";
        return out + "]";
    }
    return value.type_name() + std::string(value.is_number_unsigned() ? "u" : "");
}

// One line per sample: gauges as `name{label=value,} value`, summaries with count, sum and
// quantiles; every number with all 17 digits, so a changed value cannot hide in rounding.
inline std::string families_text(const std::vector<prometheus::MetricFamily>& families) {
    std::string text;
    for (const auto& family : families) {
        for (const auto& metric : family.metric) {
            text += family.name + "{";
            for (const auto& label : metric.label)
                text += label.name + "=" + label.value + ",";
            char value[160];
            if (family.type == prometheus::MetricType::Summary) {
                std::snprintf(value, sizeof value, "} count=%llu sum=%.17g",
                              static_cast<unsigned long long>(metric.summary.sample_count),
                              metric.summary.sample_sum);
                text += value;
                for (const auto& quantile : metric.summary.quantile) {
                    std::snprintf(value, sizeof value, " %g:%.17g", quantile.quantile,
                                  quantile.value);
                    text += value;
                }
                text += "\n";
            } else {
                std::snprintf(value, sizeof value, "} %.17g\n", metric.gauge.value);
                text += value;
            }
        }
    }
    return text;
}

// The golden journal's succeeded run of `probe`.
inline nlohmann::json golden_run(const std::string& probe) {
    std::ifstream journal(fixtures_dir() + "/golden/runs.jsonl");
    std::string line;
    while (std::getline(journal, line)) {
        nlohmann::json event = nlohmann::json::parse(line);
        if (event.contains("run") && event["run"].value("probe", "") == probe &&
            event["run"].value("state", "") == "succeeded")
            return event["run"];
    }
    FAIL("no " << probe << " run in the golden journal");
    return nullptr;
}

}  // namespace hostprobe::testing
