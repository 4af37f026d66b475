// The system probe as a whole: params, the index arithmetic against hand-computed values, the
// report's layout, the metrics, and the shell tests skipped when the shell is switched off.
#include "probes/system/system_probe.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "probes/system/system_index.hpp"
#include "probes/system/system_report.hpp"
#include "probes/system/system_tests.hpp"
#include "probes/system/work_directory.hpp"
#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

struct SystemHarness {
    explicit SystemHarness(const ProbeSetup& setup = with_process_loops()) : probe(setup) {}
    static ProbeSetup with_process_loops() {
        ProbeSetup setup;
        setup.process_loops = HOSTPROBE_PROCESS_LOOPS;
        return setup;
    }
    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    host::HostFacts facts{host::collect_host_facts(root)};
    SystemProbe probe;
    std::stop_source stop;
    std::vector<double> progress;

    Result<runs::ProbeOutcome> run(const json& input) {
        auto params = probe.params().normalize(input);
        REQUIRE(params.ok());
        REQUIRE(probe.check(*params).ok());
        const runs::ProbeContext context{root, facts, stop.get_token(),
                                         [this](double p) { progress.push_back(p); }, "0123abcd"};
        return probe.run(context, *params);
    }
};

std::string metrics_text(const std::vector<prometheus::MetricFamily>& families) {
    std::string text;
    for (const auto& family : families) {
        for (const auto& metric : family.metric) {
            text += family.name + "{";
            for (const auto& label : metric.label)
                text += label.name + "=" + label.value + ",";
            text += "} " + std::to_string(metric.gauge.value) + "\n";
        }
    }
    return text;
}

}  // namespace

TEST_CASE("index arithmetic: result / baseline x 10, and the geometric mean") {
    CHECK(index_value(116700.0, 116700.0) == doctest::Approx(10.0));
    CHECK(index_value(32838716.7, 116700.0) == doctest::Approx(2813.943));  // 32838716.7/11670
    CHECK(index_value(4405.1, 55.0) == doctest::Approx(800.927));
    CHECK(index_value(1.0, 0.0) == 0.0);
    // sqrt(2814 x 1389.3) = 1977.24; the cube root of 10 x 100 x 1000 is 100.
    CHECK(index_score({2814.0, 1389.3}).value() == doctest::Approx(1977.24).epsilon(1e-5));
    CHECK(index_score({10.0, 100.0, 1000.0}).value() == doctest::Approx(100.0));
    CHECK(index_score({50.0}).value() == doctest::Approx(50.0));
    CHECK_FALSE(index_score({}).has_value());
    CHECK(index_score({0.0, 40.0}).value() == doctest::Approx(40.0));  // a test with nothing
}

TEST_CASE("UnixBench's baselines, in its order") {
    const auto& specs = system_test_specs();
    REQUIRE(specs.size() == 12);
    CHECK(specs.front().name == "dhrystone");
    CHECK(specs.front().baseline == 116700.0);
    CHECK(find_system_test("whetstone")->baseline == 55.0);
    CHECK(find_system_test("execl")->baseline == 43.0);
    CHECK(find_system_test("file_copy_1024")->baseline == 3960.0);
    CHECK(find_system_test("file_copy_256")->baseline == 1655.0);
    CHECK(find_system_test("file_copy_4096")->baseline == 5800.0);
    CHECK(find_system_test("pipe")->baseline == 12440.0);
    CHECK(find_system_test("context_switch")->baseline == 4000.0);
    CHECK(find_system_test("spawn")->baseline == 126.0);
    CHECK(find_system_test("shell_1")->baseline == 42.4);
    CHECK(find_system_test("shell_8")->baseline == 6.0);
    CHECK(find_system_test("syscall")->baseline == 15000.0);
    CHECK(system_test_selectors() == std::vector<std::string>{"dhrystone", "whetstone", "execl",
                                                              "file_copy", "pipe", "context_switch",
                                                              "spawn", "shell", "syscall"});
}

TEST_CASE("copies: auto is 1 and the budget's workers; bad lists are refused") {
    SystemHarness harness;
    const auto system_copies_with = [&harness](const json& copies, uint32_t workers) {
        harness.facts.cpu_budget.workers = workers;
        const runs::ProbeContext context{harness.root, harness.facts, {}, [](double) {}, "0"};
        return system_copies(copies, context);
    };
    CHECK(system_copies_with("auto", 1) == std::vector<size_t>{1});
    CHECK(system_copies_with("auto", 4) == std::vector<size_t>{1, 4});
    CHECK(system_copies_with(json{2, 3}, 8) == std::vector<size_t>{2, 3});
    const auto& params = harness.probe.params();
    CHECK(params.normalize({{"copies", "auto"}}).ok());
    CHECK(params.normalize({{"copies", {1, 8}}}).ok());
    CHECK_FALSE(params.normalize({{"copies", {0}}}).ok());
    CHECK_FALSE(params.normalize({{"copies", "many"}}).ok());
    CHECK_FALSE(params.normalize({{"seconds", 0.5}}).ok());
    CHECK_FALSE(params.normalize({{"seconds", 121}}).ok());
    CHECK_FALSE(params.normalize({{"tests", {"whetstone", "nope"}}}).ok());
    auto relative = params.normalize({{"tests", {"file_copy"}}, {"directory", "tmp"}});
    REQUIRE(relative.ok());
    CHECK_FALSE(harness.probe.check(*relative).ok());  // outside --disk-dir
}

TEST_CASE("a run: both passes, each test's index, the scores, the report and the metrics") {
    SystemHarness harness;
    auto outcome =
        harness.run({{"tests", {"syscall", "pipe"}}, {"copies", {1, 2}}, {"seconds", 1}});
    REQUIRE(outcome.ok());
    CHECK_FALSE(outcome->partial);
    const json& result = outcome->result;
    REQUIRE(result["tests"].size() == 4);
    for (const auto& test : result["tests"]) {
        INFO(test.dump());
        CHECK(test["value"].get<double>() > 0);
        CHECK(test["index"].get<double>() ==
              doctest::Approx(test["value"].get<double>() / test["baseline"].get<double>() * 10));
    }
    CHECK(result["tests"][0]["name"] == "pipe");  // UnixBench's order, not the request's
    const double pipe = result["tests"][0]["index"], syscall = result["tests"][1]["index"];
    CHECK(result["index"]["1"].get<double>() == doctest::Approx(std::sqrt(pipe * syscall)));
    CHECK(result["index"]["2"].is_number());
    CHECK(result["index_tests"]["1"] == 2);
    CHECK(result["index_partial"] == true);
    CHECK(result["note"].get<std::string>().find("UnixBench 6.0.0's index tests") !=
          std::string::npos);
    CHECK(result["unixbench_version"] == "6.0.0");
    CHECK(harness.progress.back() == doctest::Approx(1.0));

    const std::string& text = outcome->text_report;
    CHECK(text.find("running 1 parallel copy of tests") != std::string::npos);
    CHECK(text.find("running 2 parallel copies of tests") != std::string::npos);
    CHECK(text.find("System Benchmarks Index Values              BASELINE       RESULT    INDEX") !=
          std::string::npos);
    CHECK(text.find("Pipe Throughput                              12440.0") != std::string::npos);
    CHECK(text.find("System Benchmarks Index Score (Partial Only)") != std::string::npos);

    const std::string metrics = metrics_text(harness.probe.result_metrics(result, 1.7e9).value());
    CHECK(metrics.find("hostprobe_system_result{test=pipe,copies=2,unit=lps,}") !=
          std::string::npos);
    CHECK(metrics.find("hostprobe_system_index{test=syscall,copies=1,}") != std::string::npos);
    CHECK(metrics.find("hostprobe_system_index_score{copies=2,}") != std::string::npos);
}

TEST_CASE("no shell: the shell tests are skipped with the reason, the rest still run") {
    SystemHarness harness({.shell = "/nonexistent/sh", .process_loops = HOSTPROBE_PROCESS_LOOPS});
    auto outcome = harness.run({{"tests", {"shell", "syscall"}}, {"copies", {1}}, {"seconds", 1}});
    REQUIRE(outcome.ok());
    const json& result = outcome->result;
    REQUIRE(result["tests"].size() == 1);
    CHECK(result["tests"][0]["name"] == "syscall");
    REQUIRE(result["skipped"].size() == 2);
    CHECK(result["skipped"][0]["name"] == "shell_1");
    CHECK(result["skipped"][1]["name"] == "shell_8");
    CHECK(result["skipped"][0]["reason"].get<std::string>().find("/nonexistent/sh") !=
          std::string::npos);
    CHECK(outcome->text_report.find("Shell Scripts (8 concurrent)             skipped: ") !=
          std::string::npos);
}

TEST_CASE("the report, from a hand-made result, lines up like UnixBench's") {
    const json result = {
        {"note", "UnixBench-style"},
        {"seconds_per_test", 10},
        {"partial", false},
        {"copies", {1}},
        {"cpu_budget", {{"cores", 2.0}, {"workers", 2}, {"visible_cpus", 2}, {"source", "x"}}},
        {"tests",
         {{{"name", "dhrystone"},
           {"title", "Dhrystone 2 using register variables"},
           {"copies", 1},
           {"value", 32838716.7},
           {"unit", "lps"},
           {"baseline", 116700.0},
           {"index", 2813.9},
           {"seconds", 10.0}}}},
        {"skipped", json::array()},
        {"index", {{"1", 2813.9}}},
        {"index_tests", {{"1", 1}}}};
    const std::string text = system_report(result.get<SystemResult>());
    CHECK(text.find("Dhrystone 2 using register variables       32838716.7 lps   (10.0 s)\n") !=
          std::string::npos);
    json with_dmips = result;
    with_dmips["tests"][0]["dmips"] = 18690.2;  // 32838716.7 / 1757
    CHECK(system_report(with_dmips.get<SystemResult>())
              .find("32838716.7 lps   (10.0 s), 18690.2 DMIPS\n") != std::string::npos);
    CHECK(
        text.find("Dhrystone 2 using register variables        116700.0   32838716.7   2813.9\n") !=
        std::string::npos);
    // The score ends in the INDEX column, as UnixBench's does.
    CHECK(text.find("System Benchmarks Index Score (Partial Only)" + std::string(24, ' ') +
                    "2813.9\n") != std::string::npos);
}

TEST_CASE("nowhere to write: file_copy is skipped with the reason, the rest still runs") {
    // A read-only root file system without a /tmp volume, as a task may have.
    const char* before = std::getenv("TMPDIR");
    const std::string saved = before ? before : "";
    ::setenv("TMPDIR", "/nonexistent-tmp", 1);
    SystemHarness harness;
    auto outcome =
        harness.run({{"tests", {"file_copy", "syscall"}}, {"copies", {1}}, {"seconds", 1}});
    if (before) {
        ::setenv("TMPDIR", saved.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
    REQUIRE(outcome.ok());
    const json& result = outcome->result;
    REQUIRE(result["tests"].size() == 1);
    CHECK(result["tests"][0]["name"] == "syscall");
    REQUIRE(result["skipped"].size() == 3);
    for (const auto& skipped : result["skipped"]) {
        CHECK(skipped["reason"].get<std::string>().find(
                  "cannot create a private directory in /nonexistent-tmp: ") != std::string::npos);
    }
}

TEST_CASE("the private directory is bounded too: file_copy is skipped when its files do not fit") {
    StoragePolicy small;
    small.max_bytes = 8u << 20;  // one copy's files are 15.6 MiB
    SystemHarness harness({.storage = small, .process_loops = HOSTPROBE_PROCESS_LOOPS});
    auto outcome =
        harness.run({{"tests", {"file_copy", "syscall"}}, {"copies", {1}}, {"seconds", 1}});
    REQUIRE(outcome.ok());
    const json& result = outcome->result;
    REQUIRE(result["tests"].size() == 1);
    CHECK(result["tests"][0]["name"] == "syscall");
    REQUIRE(result["skipped"].size() == 3);
    CHECK(result["skipped"][0]["reason"].get<std::string>().find("--disk-max-bytes") !=
          std::string::npos);
    // Where it would have worked: the private directory's parent, as opened.
    CHECK(result["directory"] ==
          std::filesystem::canonical(WorkDirectory::private_parent()).string());
}

TEST_CASE("the directory a run worked in is the one it opened inside --disk-dir") {
    testing::TempTree allowed;
    allowed.mkdir("sub");
    StoragePolicy policy;
    policy.allowed_dirs = {std::filesystem::canonical(allowed.root()).string()};
    SystemHarness harness({.storage = policy, .process_loops = HOSTPROBE_PROCESS_LOOPS});
    const std::string requested = policy.allowed_dirs[0] + "//sub/.";
    auto outcome = harness.run({{"tests", {"file_copy", "syscall"}},
                                {"copies", {1}},
                                {"seconds", 1},
                                {"directory", requested}});
    REQUIRE(outcome.ok());
    const json& result = outcome->result;
    CHECK(result["directory"] == policy.allowed_dirs[0] + "/sub");
    CHECK(result["skipped"].empty());
    CHECK(result["tests"].size() == 4);
    CHECK(std::filesystem::is_empty(allowed.root() + "/sub"));  // the work directory went too
    auto without = harness.run({{"tests", {"syscall"}}, {"copies", {1}}, {"seconds", 1}});
    REQUIRE(without.ok());
    CHECK(without->result["directory"].is_null());  // nothing written, nowhere opened
}

TEST_CASE("dhrystone is also reported in DMIPS (VAX 11/780 = 1757 Dhrystones/s)") {
    SystemHarness harness;
    auto outcome = harness.run({{"tests", {"dhrystone"}}, {"copies", {1}}, {"seconds", 1}});
    REQUIRE(outcome.ok());
    const json& test = outcome->result["tests"].at(0);
    CHECK(test["valid"] == true);
    CHECK(test["dmips"].get<double>() == doctest::Approx(test["value"].get<double>() / 1757.0));
    CHECK(outcome->text_report.find(" DMIPS\n") != std::string::npos);
}
