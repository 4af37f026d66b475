#include "probes/system/system_report.hpp"

#include <cstdarg>
#include <cstdio>

#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

__attribute__((format(printf, 1, 2))) std::string format(const char* pattern, ...) {
    char buffer[256];
    va_list values;
    va_start(values, pattern);
    std::vsnprintf(buffer, sizeof buffer, pattern, values);
    va_end(values);
    return buffer;
}

std::string pass_report(const json& result, size_t copies) {
    const std::string key = std::to_string(copies);
    std::string text = std::string(72, '-') + "\n";
    text += format(
        "%u CPUs visible, CPU budget %.2f (%u workers); running %zu parallel cop%s of "
        "tests\n\n",
        result["cpu_budget"]["visible_cpus"].get<unsigned>(),
        result["cpu_budget"]["cores"].get<double>(),
        result["cpu_budget"]["workers"].get<unsigned>(), copies, copies == 1 ? "y" : "ies");
    for (const auto& test : result["tests"]) {
        if (test["copies"] != copies) continue;
        text += format("%-40s %12.1f %-5s (%.1f s)", test["title"].get<std::string>().c_str(),
                       test["value"].get<double>(), test["unit"].get<std::string>().c_str(),
                       test["seconds"].get<double>());
        if (test.contains("dmips")) text += format(", %.1f DMIPS", test["dmips"].get<double>());
        text += "\n";
    }
    for (const auto& skipped : result["skipped"]) {
        if (skipped["copies"] != copies) continue;
        text += format("%-40s skipped: ", skipped["title"].get<std::string>().c_str()) +
                skipped["reason"].get<std::string>() + "\n";
    }
    text += format("\n%-40s%12s%13s%9s\n", "System Benchmarks Index Values", "BASELINE", "RESULT",
                   "INDEX");
    for (const auto& test : result["tests"]) {
        if (test["copies"] != copies) continue;
        text += format("%-40s%12.1f%13.1f%9.1f\n", test["title"].get<std::string>().c_str(),
                       test["baseline"].get<double>(), test["value"].get<double>(),
                       test["index"].get<double>());
    }
    text += format("%-40s%34s\n", "", "========");
    const json& score = result["index"][key];
    const bool partial = result["index_tests"][key].get<size_t>() < system_test_specs().size();
    const char* label =
        partial ? "System Benchmarks Index Score (Partial Only)" : "System Benchmarks Index Score";
    if (score.is_number()) {
        text += format("%-50s%24.1f\n", label, score.get<double>());
    } else {
        text += format("%-50s%24s\n", label, "-");
    }
    return text + "\n";
}

}  // namespace

std::string system_report(const json& result) {
    std::string text = "hostprobe system: " + result["note"].get<std::string>() + "\n";
    text += format("%.0f s per test and pass", result["seconds_per_test"].get<double>());
    if (result["partial"].get<bool>()) text += "; stopped early: the result is partial";
    text += "\n\n";
    for (const auto& copies : result["copies"])
        text += pass_report(result, copies.get<size_t>());
    return text;
}

}  // namespace hostprobe::probes
