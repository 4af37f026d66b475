#include "emf/document.hpp"

#include <algorithm>

#include "core/utf8.hpp"

namespace hostprobe::emf {

namespace {

nlohmann::json metric_definitions(const std::vector<Metric>& metrics, size_t first, size_t end) {
    nlohmann::json definitions = nlohmann::json::array();
    for (size_t i = first; i < end; ++i)
        definitions.push_back(
            {{"Name", metrics[i].name}, {"Unit", std::string(unit_name(metrics[i].unit))}});
    return definitions;
}

nlohmann::json bounded_dimension_sets(const std::vector<std::vector<std::string>>& sets) {
    nlohmann::json bounded = nlohmann::json::array();
    for (const auto& set : sets) {
        const size_t kept = std::min(set.size(), kMaxDimensionsPerSet);
        bounded.push_back(std::vector<std::string>(set.begin(), set.begin() + kept));
    }
    if (bounded.empty()) bounded.push_back(nlohmann::json::array());  // the schema wants one
    return bounded;
}

// Metrics beyond 100 go to further directives with the same namespace and dimensions.
nlohmann::json metric_directives(const DocumentParts& parts) {
    nlohmann::json directives = nlohmann::json::array();
    const nlohmann::json sets = bounded_dimension_sets(parts.dimension_sets);
    for (size_t first = 0; first < parts.metrics.size(); first += kMaxMetricsPerDirective) {
        const size_t end = std::min(parts.metrics.size(), first + kMaxMetricsPerDirective);
        directives.push_back({{"Namespace", parts.namespace_name},
                              {"Dimensions", sets},
                              {"Metrics", metric_definitions(parts.metrics, first, end)}});
    }
    return directives;
}

}  // namespace

std::string dimension_value(const std::string& value) {
    if (value.empty()) return "none";
    std::string valid = valid_utf8(value);
    if (valid.size() <= kMaxDimensionValueLength) return valid;
    size_t cut = kMaxDimensionValueLength;
    while (cut > 0 && (static_cast<unsigned char>(valid[cut]) & 0xC0) == 0x80)
        --cut;  // not inside a multi-byte character
    valid.resize(cut);
    return valid;
}

nlohmann::json document_json(const DocumentParts& parts) {
    nlohmann::json document = parts.members.is_object() ? parts.members : nlohmann::json::object();
    for (const auto& dimension : parts.dimensions)
        document[dimension.name] = dimension_value(dimension.value);
    for (const auto& metric : parts.metrics)
        document[metric.name] = metric.value;
    document["_aws"] = {{"Timestamp", parts.timestamp_ms},
                        {"CloudWatchMetrics", metric_directives(parts)}};
    return document;
}

std::string document_line(const DocumentParts& parts) {
    return document_json(parts).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hostprobe::emf
