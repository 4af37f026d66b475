// The rules of AWS's EMF specification that its JSON schema cannot express, checked on a
// document the builders made: every referenced dimension and metric present at the root
// (dimensions strings of 1 to 1024 characters, metrics numbers), at most 100 metrics per
// directive, at most 30 dimensions per set, units from CloudWatch's list, the line within the
// size limit. Returns what is wrong, empty when nothing is.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "emf/document.hpp"

namespace hostprobe::testing {

inline std::vector<std::string> emf_rule_problems(const std::string& line) {
    static const std::set<std::string> kCloudWatchUnits = {"Seconds",
                                                           "Microseconds",
                                                           "Milliseconds",
                                                           "Bytes",
                                                           "Kilobytes",
                                                           "Megabytes",
                                                           "Gigabytes",
                                                           "Terabytes",
                                                           "Bits",
                                                           "Kilobits",
                                                           "Megabits",
                                                           "Gigabits",
                                                           "Terabits",
                                                           "Percent",
                                                           "Count",
                                                           "Bytes/Second",
                                                           "Kilobytes/Second",
                                                           "Megabytes/Second",
                                                           "Gigabytes/Second",
                                                           "Terabytes/Second",
                                                           "Bits/Second",
                                                           "Kilobits/Second",
                                                           "Megabits/Second",
                                                           "Gigabits/Second",
                                                           "Terabits/Second",
                                                           "Count/Second",
                                                           "None"};
    std::vector<std::string> problems;
    if (line.size() > emf::kMaxDocumentBytes) problems.push_back("line too long");
    if (line.find('\n') != std::string::npos) problems.push_back("a newline inside the line");
    const auto document = nlohmann::json::parse(line);
    const auto& aws = document.at("_aws");
    if (!aws.at("Timestamp").is_number_integer()) problems.push_back("Timestamp not an integer");
    for (const auto& directive : aws.at("CloudWatchMetrics")) {
        if (directive.at("Metrics").size() > 100) problems.push_back("more than 100 metrics");
        if (directive.at("Dimensions").empty()) problems.push_back("no dimension set");
        for (const auto& set : directive.at("Dimensions")) {
            if (set.size() > 30) problems.push_back("more than 30 dimensions in a set");
            for (const auto& name : set) {
                const std::string key = name.get<std::string>();
                if (!document.contains(key) || !document[key].is_string())
                    problems.push_back("dimension " + key + " missing or not a string");
                else if (document[key].get<std::string>().empty() ||
                         document[key].get<std::string>().size() > 1024)
                    problems.push_back("dimension " + key + " of a bad length");
            }
        }
        for (const auto& metric : directive.at("Metrics")) {
            const std::string key = metric.at("Name").get<std::string>();
            if (!document.contains(key) || !document[key].is_number())
                problems.push_back("metric " + key + " missing or not a number");
            if (!kCloudWatchUnits.count(metric.value("Unit", "None")))
                problems.push_back("metric " + key + " has unit " + metric.value("Unit", ""));
        }
    }
    return problems;
}

// All metric names of a document, over its directives.
inline std::vector<std::string> emf_metric_names(const nlohmann::json& document) {
    std::vector<std::string> names;
    for (const auto& directive : document.at("_aws").at("CloudWatchMetrics"))
        for (const auto& metric : directive.at("Metrics"))
            names.push_back(metric.at("Name").get<std::string>());
    return names;
}

}  // namespace hostprobe::testing
