// One CloudWatch Embedded Metric Format document (AWS's "Specification: Embedded metric format"):
// `_aws.Timestamp` in milliseconds, `_aws.CloudWatchMetrics` directives naming the namespace,
// the dimension sets and the metrics, and every member they reference at the root. Limits of the
// specification are kept here, once: at most 100 metrics per directive (more metrics become more
// directives of the same document), at most 30 dimensions per set, dimension values of 1 to 1024
// characters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "emf/metric_group.hpp"

namespace hostprobe::emf {

inline constexpr size_t kMaxMetricsPerDirective = 100;
inline constexpr size_t kMaxDimensionsPerSet = 30;
inline constexpr size_t kMaxDimensionValueLength = 1024;
// The specification allows 1 MB, but ECS's awslogs driver (Docker's) cuts a line into events of
// at most 262144 - 26 bytes, and a cut document is no JSON: every line stays within that.
inline constexpr size_t kMaxDocumentBytes = 262144 - 26;

struct DocumentParts {
    std::string namespace_name;
    int64_t timestamp_ms = 0;
    std::vector<Dimension> dimensions;  // every dimension any set names, with its value
    std::vector<std::vector<std::string>> dimension_sets;
    std::vector<Metric> metrics;
    nlohmann::json members = nlohmann::json::object();  // what is not a metric nor a dimension
};

// The document as JSON. Dimension values are made valid: an empty one becomes "none", a longer
// one is cut to 1024 bytes (at a UTF-8 character boundary). Sets longer than 30 are cut, which
// no caller here does (tests hold the builders to it).
nlohmann::json document_json(const DocumentParts& parts);
// document_json as one line (no newline); invalid UTF-8 in any string becomes U+FFFD.
std::string document_line(const DocumentParts& parts);

// The value a dimension may carry (see document_json).
std::string dimension_value(const std::string& value);

}  // namespace hostprobe::emf
