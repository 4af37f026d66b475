// The system probe's result as a struct: its JSON both ways with the same keys and types, the
// report and the metrics of fixed documents exactly as the JSON-based code made them (the
// expected texts were printed by that code, commit 5d47ef5), and restored results that do not
// parse giving a parse error instead of metrics.
#include "probes/system/system_result.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "probes/system/system_probe.hpp"
#include "probes/system/system_report.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

// Three passes (keys "1" < "16" < "2"), a complete one with a DMIPS line, a test that did
// nothing, skipped tests, scores that are null, a partial run.
constexpr const char* kHandMade = R"json(
{
 "note": "hand-made",
 "seconds_per_test": 10.0,
 "partial": true,
 "copies": [
  1,
  2,
  16
 ],
 "cpu_budget": {
  "cores": 1.5,
  "workers": 2,
  "visible_cpus": 4,
  "source": "cgroup"
 },
 "directory": "/tmp/x",
 "tests": [
  {
   "name": "dhrystone",
   "title": "Dhrystone 2 using register variables",
   "copies": 1,
   "value": 32838716.7,
   "unit": "lps",
   "baseline": 116700.0,
   "index": 2813.943,
   "seconds": 10.01,
   "valid": true,
   "dmips": 18690.2
  },
  {
   "name": "whetstone",
   "title": "Double-Precision Whetstone",
   "copies": 1,
   "value": 4405.1,
   "unit": "MWIPS",
   "baseline": 55.0,
   "index": 800.927,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "execl",
   "title": "Execl Throughput",
   "copies": 1,
   "value": 4300.0,
   "unit": "lps",
   "baseline": 43.0,
   "index": 1000.0,
   "seconds": 9.9,
   "valid": true
  },
  {
   "name": "file_copy_1024",
   "title": "File Copy 1024 bufsize 2000 maxblocks",
   "copies": 1,
   "value": 396000.0,
   "unit": "KBps",
   "baseline": 3960.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "file_copy_256",
   "title": "File Copy 256 bufsize 500 maxblocks",
   "copies": 1,
   "value": 165500.0,
   "unit": "KBps",
   "baseline": 1655.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "file_copy_4096",
   "title": "File Copy 4096 bufsize 8000 maxblocks",
   "copies": 1,
   "value": 580000.0,
   "unit": "KBps",
   "baseline": 5800.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "pipe",
   "title": "Pipe Throughput",
   "copies": 1,
   "value": 1244000.0,
   "unit": "lps",
   "baseline": 12440.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "context_switch",
   "title": "Pipe-based Context Switching",
   "copies": 1,
   "value": 400000.0,
   "unit": "lps",
   "baseline": 4000.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "spawn",
   "title": "Process Creation",
   "copies": 1,
   "value": 12600.0,
   "unit": "lps",
   "baseline": 126.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": true
  },
  {
   "name": "shell_1",
   "title": "Shell Scripts (1 concurrent)",
   "copies": 1,
   "value": 4240.0,
   "unit": "lpm",
   "baseline": 42.4,
   "index": 1000.0,
   "seconds": 60.0,
   "valid": true
  },
  {
   "name": "shell_8",
   "title": "Shell Scripts (8 concurrent)",
   "copies": 1,
   "value": 600.0,
   "unit": "lpm",
   "baseline": 6.0,
   "index": 1000.0,
   "seconds": 60.0,
   "valid": true
  },
  {
   "name": "syscall",
   "title": "System Call Overhead",
   "copies": 1,
   "value": 1500000.0,
   "unit": "lps",
   "baseline": 15000.0,
   "index": 1000.0,
   "seconds": 10.0,
   "valid": false
  },
  {
   "name": "pipe",
   "title": "Pipe Throughput",
   "copies": 2,
   "value": 0.0,
   "unit": "lps",
   "baseline": 12440.0,
   "index": 0.0,
   "seconds": 10.0,
   "valid": true
  }
 ],
 "skipped": [
  {
   "name": "shell_1",
   "title": "Shell Scripts (1 concurrent)",
   "copies": 2,
   "reason": "no shell at /nonexistent/sh"
  },
  {
   "name": "shell_8",
   "title": "Shell Scripts (8 concurrent)",
   "copies": 16,
   "reason": "stopped"
  }
 ],
 "index": {
  "1": 1128.7,
  "16": null,
  "2": null
 },
 "index_tests": {
  "1": 12,
  "16": 0,
  "2": 1
 },
 "index_partial": true
}
)json";

// A real `hostprobe run system --tests syscall,pipe --seconds 1` result (copies auto = 1, 2).
constexpr const char* kMeasured = R"json(
{
 "copies": [
  1,
  2
 ],
 "cpu_budget": {
  "cores": 2.0,
  "source": "cpus",
  "visible_cpus": 2,
  "workers": 2
 },
 "directory": null,
 "index": {
  "1": 325.46390357118173,
  "2": 387.8395474862627
 },
 "index_partial": true,
 "index_tests": {
  "1": 2,
  "2": 2
 },
 "note": "UnixBench-style: the tests and baselines of UnixBench 5.1.3's index, run inside hostprobe (its own Dhrystone 2.1 and Whetstone, its own binary for execl). Scores are comparable in kind with UnixBench's, not identical.",
 "partial": false,
 "seconds_per_test": 1.0,
 "skipped": [],
 "tests": [
  {
   "baseline": 12440.0,
   "copies": 1,
   "index": 338.1945080193274,
   "name": "pipe",
   "seconds": 0.999976307,
   "title": "Pipe Throughput",
   "unit": "lps",
   "valid": true,
   "value": 420713.9679760433
  },
  {
   "baseline": 15000.0,
   "copies": 1,
   "index": 313.2125153307866,
   "name": "syscall",
   "seconds": 1.003961585,
   "title": "System Call Overhead",
   "unit": "lps",
   "valid": true,
   "value": 469818.7729961799
  },
  {
   "baseline": 12440.0,
   "copies": 2,
   "index": 455.6531409328721,
   "name": "pipe",
   "seconds": 1.004411161,
   "title": "Pipe Throughput",
   "unit": "lps",
   "valid": true,
   "value": 566832.5073204929
  },
  {
   "baseline": 15000.0,
   "copies": 2,
   "index": 330.11846310636764,
   "name": "syscall",
   "seconds": 1.011638309,
   "title": "System Call Overhead",
   "unit": "lps",
   "valid": true,
   "value": 495177.6946595515
  }
 ]
}
)json";

// What the probe wrote before `directory` and `dmips` existed, without `valid` and
// `index_partial`.
constexpr const char* kOlder = R"json(
{
 "note": "UnixBench-style",
 "seconds_per_test": 10,
 "partial": false,
 "copies": [
  1
 ],
 "cpu_budget": {
  "cores": 2.0,
  "workers": 2,
  "visible_cpus": 2,
  "source": "x"
 },
 "tests": [
  {
   "name": "dhrystone",
   "title": "Dhrystone 2 using register variables",
   "copies": 1,
   "value": 32838716.7,
   "unit": "lps",
   "baseline": 116700.0,
   "index": 2813.9,
   "seconds": 10.0
  }
 ],
 "skipped": [],
 "index": {
  "1": 2813.9
 },
 "index_tests": {
  "1": 1
 }
}
)json";

// The metrics in order, each sample with its labels and its value to the last digit.
std::string metrics_dump(const std::vector<prometheus::MetricFamily>& families) {
    std::string text;
    for (const auto& family : families) {
        text += family.name + " | " + family.help + "\n";
        for (const auto& metric : family.metric) {
            text += "  {";
            for (const auto& label : metric.label)
                text += label.name + "=" + label.value + ",";
            char value[64];
            std::snprintf(value, sizeof value, "%.17g", metric.gauge.value);
            text += std::string("} ") + value + "\n";
        }
    }
    return text;
}

std::string result_metrics_dump(const json& result) {
    const SystemProbe probe(ProbeSetup{});
    auto metrics = probe.result_metrics(result, 1.7e9);
    REQUIRE(metrics.ok());
    return metrics_dump(*metrics);
}

}  // namespace

TEST_CASE("system result: a run's document reads back into the struct and out to the same text") {
    for (const char* document : {kHandMade, kMeasured}) {
        const json original = json::parse(document);
        const auto result = original.get<SystemResult>();
        // dump(): 10.0 stays 10.0, 2 stays 2 (json's == would take one for the other).
        CHECK(json(result).dump() == original.dump());
    }
    const auto result = json::parse(kHandMade).get<SystemResult>();
    REQUIRE(result.tests.size() == 13);
    CHECK(result.tests[0].dmips.value() == doctest::Approx(18690.2));
    CHECK_FALSE(result.tests[1].dmips.has_value());
    CHECK_FALSE(result.tests[11].valid);
    CHECK(result.copies == std::vector<size_t>{1, 2, 16});
    REQUIRE(result.index.size() == 3);
    CHECK(result.index[1].copies == 16);
    CHECK_FALSE(result.index[1].score.has_value());
    CHECK(result.index[2].tests == 1);
    CHECK(result.cpu_budget.workers == 2);
    CHECK(result.directory == "/tmp/x");
    CHECK(result.partial);
}

TEST_CASE("system result: the struct round trip keeps every member") {
    SystemResult result;
    result.note = "note";
    result.tests.push_back({.name = "dhrystone",
                            .title = "Dhrystone 2 using register variables",
                            .unit = "lps",
                            .copies = 4,
                            .value = 1757.0,
                            .baseline = 116700.0,
                            .index = 0.15,
                            .seconds = 1.5,
                            .valid = false,
                            .dmips = 1.0});
    result.skipped.push_back({"shell_1", "Shell Scripts (1 concurrent)", 4, "no shell"});
    result.copies = {4};
    result.seconds_per_test = 2.5;
    result.cpu_budget = {.cores = 0.25, .workers = 1, .visible_cpus = 2, .source = "cgroup"};
    result.index = {{4, 0.15, 1}};
    result.index_partial = true;
    result.partial = true;
    const json written = result;
    CHECK(written["directory"].is_null());
    CHECK(written["index"]["4"] == 0.15);
    CHECK(written["index_tests"]["4"].is_number_unsigned());
    const auto read = written.get<SystemResult>();
    CHECK(json(read) == written);
    CHECK(read.tests[0].dmips == 1.0);
    CHECK(read.skipped[0].reason == "no shell");
    CHECK(read.cpu_budget.source == "cgroup");
}

TEST_CASE("system result: the report is UnixBench's table, as it was") {
    const std::string expected = R"txt(hostprobe system: hand-made
10 s per test and pass; stopped early: the result is partial

------------------------------------------------------------------------
4 CPUs visible, CPU budget 1.50 (2 workers); running 1 parallel copy of tests

Dhrystone 2 using register variables       32838716.7 lps   (10.0 s), 18690.2 DMIPS
Double-Precision Whetstone                     4405.1 MWIPS (10.0 s)
Execl Throughput                               4300.0 lps   (9.9 s)
File Copy 1024 bufsize 2000 maxblocks        396000.0 KBps  (10.0 s)
File Copy 256 bufsize 500 maxblocks          165500.0 KBps  (10.0 s)
File Copy 4096 bufsize 8000 maxblocks        580000.0 KBps  (10.0 s)
Pipe Throughput                             1244000.0 lps   (10.0 s)
Pipe-based Context Switching                 400000.0 lps   (10.0 s)
Process Creation                              12600.0 lps   (10.0 s)
Shell Scripts (1 concurrent)                   4240.0 lpm   (60.0 s)
Shell Scripts (8 concurrent)                    600.0 lpm   (60.0 s)
System Call Overhead                        1500000.0 lps   (10.0 s)

System Benchmarks Index Values              BASELINE       RESULT    INDEX
Dhrystone 2 using register variables        116700.0   32838716.7   2813.9
Double-Precision Whetstone                      55.0       4405.1    800.9
Execl Throughput                                43.0       4300.0   1000.0
File Copy 1024 bufsize 2000 maxblocks         3960.0     396000.0   1000.0
File Copy 256 bufsize 500 maxblocks           1655.0     165500.0   1000.0
File Copy 4096 bufsize 8000 maxblocks         5800.0     580000.0   1000.0
Pipe Throughput                              12440.0    1244000.0   1000.0
Pipe-based Context Switching                  4000.0     400000.0   1000.0
Process Creation                               126.0      12600.0   1000.0
Shell Scripts (1 concurrent)                    42.4       4240.0   1000.0
Shell Scripts (8 concurrent)                     6.0        600.0   1000.0
System Call Overhead                         15000.0    1500000.0   1000.0
                                                                  ========
System Benchmarks Index Score                                       1128.7

------------------------------------------------------------------------
4 CPUs visible, CPU budget 1.50 (2 workers); running 2 parallel copies of tests

Pipe Throughput                                   0.0 lps   (10.0 s)
Shell Scripts (1 concurrent)             skipped: no shell at /nonexistent/sh

System Benchmarks Index Values              BASELINE       RESULT    INDEX
Pipe Throughput                              12440.0          0.0      0.0
                                                                  ========
System Benchmarks Index Score (Partial Only)                             -

------------------------------------------------------------------------
4 CPUs visible, CPU budget 1.50 (2 workers); running 16 parallel copies of tests

Shell Scripts (8 concurrent)             skipped: stopped

System Benchmarks Index Values              BASELINE       RESULT    INDEX
                                                                  ========
System Benchmarks Index Score (Partial Only)                             -

)txt";
    CHECK(system_report(json::parse(kHandMade).get<SystemResult>()) == expected);
}

TEST_CASE("system result: the metrics, in order and to the last digit, as they were") {
    json document = json::parse(kHandMade);
    document["index"] = {{"1", 1128.7}, {"16", 5.5}, {"2", 7.25}};  // every score a number
    const std::string expected =
        R"txt(hostprobe_system_result | Result of each UnixBench-style test of the last completed system run, in its unit.
  {test=dhrystone,copies=1,unit=lps,} 32838716.699999999
  {test=whetstone,copies=1,unit=MWIPS,} 4405.1000000000004
  {test=execl,copies=1,unit=lps,} 4300
  {test=file_copy_1024,copies=1,unit=KBps,} 396000
  {test=file_copy_256,copies=1,unit=KBps,} 165500
  {test=file_copy_4096,copies=1,unit=KBps,} 580000
  {test=pipe,copies=1,unit=lps,} 1244000
  {test=context_switch,copies=1,unit=lps,} 400000
  {test=spawn,copies=1,unit=lps,} 12600
  {test=shell_1,copies=1,unit=lpm,} 4240
  {test=shell_8,copies=1,unit=lpm,} 600
  {test=syscall,copies=1,unit=lps,} 1500000
  {test=pipe,copies=2,unit=lps,} 0
hostprobe_system_index | Index of each test of the last completed system run (UnixBench's baseline = 10).
  {test=dhrystone,copies=1,} 2813.9430000000002
  {test=whetstone,copies=1,} 800.92700000000002
  {test=execl,copies=1,} 1000
  {test=file_copy_1024,copies=1,} 1000
  {test=file_copy_256,copies=1,} 1000
  {test=file_copy_4096,copies=1,} 1000
  {test=pipe,copies=1,} 1000
  {test=context_switch,copies=1,} 1000
  {test=spawn,copies=1,} 1000
  {test=shell_1,copies=1,} 1000
  {test=shell_8,copies=1,} 1000
  {test=syscall,copies=1,} 1000
  {test=pipe,copies=2,} 0
hostprobe_system_index_score | System Benchmarks Index Score (geometric mean of the indexes) per copy count.
  {copies=1,} 1128.7
  {copies=16,} 5.5
  {copies=2,} 7.25
hostprobe_system_last_run_timestamp_seconds | When the last completed system run finished (Unix time).
  {} 1700000000
)txt";
    CHECK(result_metrics_dump(document) == expected);
}

TEST_CASE("system result: an older result without the later members still has its metrics") {
    const json older = json::parse(kOlder);
    const auto result = older.get<SystemResult>();
    CHECK(result.tests[0].valid);
    CHECK_FALSE(result.directory.has_value());
    CHECK(result.index_partial);  // 1 of the index's 12 tests
    CHECK(result_metrics_dump(older).find("{copies=1,} 2813.9000000000001\n") != std::string::npos);
}

TEST_CASE("system result: a damaged result gives a parse error, never an exception") {
    const json good = json::parse(kHandMade);
    struct Damage {
        const char* what;
        std::string pointer;
        json value;  // null with `remove`: the member goes
        bool remove = false;
    };
    const std::vector<Damage> damages = {
        {"no tests", "/tests", nullptr, true},
        {"tests an object", "/tests", json::object()},
        {"a test without a value", "/tests/0/value", nullptr, true},
        {"a value that is text", "/tests/0/value", "fast"},
        {"a value that is a boolean", "/tests/0/value", true},
        {"negative copies", "/tests/0/copies", -1},
        {"fractional copies", "/tests/0/copies", 1.5},
        {"copies beyond size_t", "/tests/0/copies", 1e300},
        {"a name that is a number", "/tests/0/name", 7},
        {"an index that is text", "/tests/1/index", "high"},
        {"a skipped test without a reason", "/skipped/0/reason", nullptr},
        {"no index", "/index", nullptr, true},
        {"an index array", "/index", json::array({1})},
        {"a score that is text", "/index/1", "high"},
        {"a copy count key that is not one", "/index/x", 1.0},
        {"a copy count key with a leading zero", "/index/01", 1.0},
        {"a pass without its test count", "/index_tests/1", nullptr, true},
        {"a pass without an index", "/copies", json::array({1, 3})},
        {"a budget without workers", "/cpu_budget/workers", nullptr, true},
        {"no note", "/note", nullptr, true},
        {"partial as text", "/partial", "no"},
    };
    const SystemProbe probe(ProbeSetup{});
    for (const auto& damage : damages) {
        INFO(damage.what);
        json damaged = good;
        const json::json_pointer pointer(damage.pointer);
        if (damage.remove) {
            damaged[pointer.parent_pointer()].erase(pointer.back());
        } else {
            damaged[pointer] = damage.value;
        }
        Result<std::vector<prometheus::MetricFamily>> metrics =
            std::vector<prometheus::MetricFamily>{};
        CHECK_NOTHROW(metrics = probe.result_metrics(damaged, 1.7e9));
        REQUIRE_FALSE(metrics.ok());
        CHECK(metrics.error().code == ErrorCode::parse_error);
        CHECK(metrics.error().message.rfind("system result does not parse: ", 0) == 0);
    }
    for (const json& not_a_result : {json(), json::array(), json("system")}) {
        CHECK_FALSE(probe.result_metrics(not_a_result, 1.7e9).ok());
    }
}

TEST_CASE(
    "system result: the report names the index's UnixBench and the mitigations syscalls pay") {
    SystemResult result = json::parse(kHandMade).get<SystemResult>();
    CHECK_FALSE(result.unixbench_version);  // an older result says nothing of either
    CHECK_FALSE(result.cpu_mitigations_costing_syscalls);
    result.unixbench_version = "6.0.0";
    result.cpu_mitigations_costing_syscalls = std::vector<host::SyscallCostingMitigation>{
        {"meltdown", "PTI", "page tables switched"}, {"spectre_v2", "Retpolines", "thunks"}};
    std::string report = system_report(result);
    CHECK(report.find("Index baselines: UnixBench 6.0.0 pgms/index.base") != std::string::npos);
    CHECK(report.find("Kernel mitigations paid on every system call: PTI (meltdown), Retpolines "
                      "(spectre_v2); syscall, pipe and context-switch rates are lower") !=
          std::string::npos);
    result.cpu_mitigations_costing_syscalls->clear();
    report = system_report(result);
    CHECK(report.find("Kernel mitigations paid on every system call: none\n") != std::string::npos);
    // Both survive the journal.
    const SystemResult read = json(result).get<SystemResult>();
    CHECK(read.unixbench_version == "6.0.0");
    REQUIRE(read.cpu_mitigations_costing_syscalls);
    CHECK(read.cpu_mitigations_costing_syscalls->empty());
}
