// What a system run measured, as one plain struct: the JSON of a run is its to_json, and a
// result restored from the journal is read back with from_json before the report or the metrics
// see it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "host/cpu_budget.hpp"
#include "host/cpu_vulnerabilities.hpp"
#include "probes/common/run_series.hpp"

namespace hostprobe::probes {

// One test with one copy count.
struct SystemTestResult {
    std::string name;   // "file_copy_1024"
    std::string title;  // UnixBench's name
    std::string unit;   // lps, MWIPS, KBps, lpm
    size_t copies = 1;
    double value = 0;  // in the unit, all copies together
    double baseline = 0;
    double index = 0;  // value / baseline x 10
    double seconds = 0;
    bool valid = true;            // the kernel's self-check held
    std::optional<double> dmips;  // dhrystone's value in VAX MIPS; only dhrystone has one
};

// A test that could not run with this copy count, and why.
struct SystemSkippedTest {
    std::string name;
    std::string title;
    size_t copies = 1;
    std::string reason;
};

// One pass's System Benchmarks Index Score.
struct SystemPassIndex {
    size_t copies = 1;
    std::optional<double> score;  // none when no test had a positive index
    size_t tests = 0;             // how many index values the score averages
};

// The UnixBench whose tests the probe follows and whose pgms/index.base gives the index.
inline constexpr const char* kUnixBenchVersion = "6.0.0";

struct SystemResult {
    std::string note;
    // None in results from before the probe named it (they followed 5.1.3's tests, with the
    // same baselines).
    std::optional<std::string> unixbench_version = kUnixBenchVersion;
    std::vector<SystemTestResult> tests;
    std::vector<SystemSkippedTest> skipped;
    std::vector<size_t> copies;  // the passes, in the order they ran
    double seconds_per_test = 0;
    host::CpuBudget cpu_budget;
    // The kernel's mitigations that every system call and context switch pays for (PTI,
    // retpolines, ...): why syscall, pipe and context-switch rates differ between hosts of the
    // same CPU. None in results from before the probe said.
    std::optional<std::vector<host::SyscallCostingMitigation>> cpu_mitigations_costing_syscalls;
    std::optional<std::string> directory;  // where file_copy and shell worked, if anywhere
    // One per distinct copy count, in the order of the JSON object's keys ("1" < "16" < "2").
    std::vector<SystemPassIndex> index;
    bool index_partial = false;  // some pass lacks one of the index's tests
    bool partial = false;        // stopped early
    // Slice by slice, each named "<test>/<copies>" (src/probes/common/run_series.hpp); no work
    // counted, since each test has its own unit. Older results have none.
    std::vector<SeriesSlice> series;
};

// {"note", "unixbench_version", "tests", "skipped", "copies", "seconds_per_test", "cpu_budget",
// "directory",
//  "index": {"<copies>": score or null}, "index_tests": {"<copies>": n}, "index_partial",
//  "partial"}.
void to_json(nlohmann::json& out, const SystemResult& result);
// Throws (std::exception) when a member the report or the metrics read is missing or has the
// wrong type; `valid`, `dmips`, `directory` and `index_partial` may be missing (older
// journals, and `unixbench_version` and `cpu_mitigations_costing_syscalls`: they stay missing).
void from_json(const nlohmann::json& in, SystemResult& result);

// The pass of `copies`, or null.
const SystemPassIndex* find_pass_index(const SystemResult& result, size_t copies);

// A default result and a populated one (every list with an entry, dhrystone's DMIPS): what the
// result's schema in GET /openapi.json is read off. A member added to the result is set here too.
std::vector<SystemResult> system_result_examples();

}  // namespace hostprobe::probes
