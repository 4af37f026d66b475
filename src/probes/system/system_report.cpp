#include "probes/system/system_report.hpp"

#include <cstdarg>
#include <cstdio>

#include "probes/common/series_analysis.hpp"
#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

namespace {

__attribute__((format(printf, 1, 2))) std::string format(const char* pattern, ...) {
    char buffer[256];
    va_list values;
    va_start(values, pattern);
    std::vsnprintf(buffer, sizeof buffer, pattern, values);
    va_end(values);
    return buffer;
}

std::string score_line(const SystemPassIndex* pass) {
    const bool partial = pass == nullptr || pass->tests < system_test_specs().size();
    const char* label =
        partial ? "System Benchmarks Index Score (Partial Only)" : "System Benchmarks Index Score";
    if (pass != nullptr && pass->score) return format("%-50s%24.1f\n", label, *pass->score);
    return format("%-50s%24s\n", label, "-");
}

std::string pass_report(const SystemResult& result, size_t copies) {
    std::string text = std::string(72, '-') + "\n";
    text += format(
        "%u CPUs visible, CPU budget %.2f (%u workers); running %zu parallel cop%s of "
        "tests\n\n",
        static_cast<unsigned>(result.cpu_budget.visible_cpus), result.cpu_budget.cores,
        static_cast<unsigned>(result.cpu_budget.workers), copies, copies == 1 ? "y" : "ies");
    for (const auto& test : result.tests) {
        if (test.copies != copies) continue;
        text += format("%-40s %12.1f %-5s (%.1f s)", test.title.c_str(), test.value,
                       test.unit.c_str(), test.seconds);
        if (test.dmips) text += format(", %.1f DMIPS", *test.dmips);
        text += "\n";
    }
    for (const auto& skipped : result.skipped) {
        if (skipped.copies != copies) continue;
        text += format("%-40s skipped: ", skipped.title.c_str()) + skipped.reason + "\n";
    }
    text += format("\n%-40s%12s%13s%9s\n", "System Benchmarks Index Values", "BASELINE", "RESULT",
                   "INDEX");
    for (const auto& test : result.tests) {
        if (test.copies != copies) continue;
        text += format("%-40s%12.1f%13.1f%9.1f\n", test.title.c_str(), test.baseline, test.value,
                       test.index);
    }
    text += format("%-40s%34s\n", "", "========");
    return text + score_line(find_pass_index(result, copies)) + "\n";
}

// Why System Call Overhead, Pipe Throughput and the context switches differ between hosts of
// one CPU model: what the kernel does on every entry and exit.
std::string mitigations_line(const std::vector<host::SyscallCostingMitigation>& mitigations) {
    if (mitigations.empty()) return "Kernel mitigations paid on every system call: none\n";
    std::string named;
    for (const auto& m : mitigations)
        named += (named.empty() ? "" : ", ") + m.mitigation + " (" + m.name + ")";
    return "Kernel mitigations paid on every system call: " + named +
           "; syscall, pipe and context-switch rates are lower than on a host without them\n";
}

}  // namespace

std::string system_report(const SystemResult& result) {
    std::string text = "hostprobe system: " + result.note + "\n";
    if (result.unixbench_version) {
        text += "Index baselines: UnixBench " + *result.unixbench_version +
                " pgms/index.base (the SPARCstation 20-61 \"George\" scores 10.0 on each)\n";
    }
    if (result.cpu_mitigations_costing_syscalls)
        text += mitigations_line(*result.cpu_mitigations_costing_syscalls);
    text += format("%.0f s per test and pass", result.seconds_per_test);
    if (result.partial) text += "; stopped early: the result is partial";
    text += "\n\n";
    for (size_t copies : result.copies)
        text += pass_report(result, copies);
    if (!result.series.empty()) {
        text += "\n" + series_summary_line(result.series) + "\n";
        if (const std::string told = describe_series(result.series, "work"); !told.empty())
            text += told + "\n";
    }
    return text;
}

}  // namespace hostprobe::probes
