// End to end: `hostprobe survey`, the one-shot task. Its stdout is one JSON line per document
// (host, each run, the outcome); the exit status says whether every run succeeded.
#include <doctest/doctest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/fake_ecs_endpoint.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const char* kSurveyShortCipher =
    R"({"cipher": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192], "seconds": 0.3}})";

// stdout's lines, each parsed; each must start with its "type" member, unless it is an EMF
// document (with --emf).
std::vector<json> survey_lines(const std::string& output) {
    std::vector<json> lines;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        INFO(line.substr(0, 200));
        lines.push_back(json::parse(line));
        if (!lines.back().contains("_aws")) CHECK(line.rfind("{\"type\":\"hostprobe.", 0) == 0);
    }
    return lines;
}

std::vector<std::string> types_of(const std::vector<json>& lines) {
    std::vector<std::string> types;
    for (const auto& line : lines)
        types.push_back(line["type"]);
    return types;
}

// A disk run's params that write into `directory`.
std::string disk_params(const std::string& directory, const std::string& extra) {
    return R"({"disk": {"directory": ")" + directory + R"(", "size": "1m", "direct": false)" +
           extra + "}}";
}

}  // namespace

TEST_CASE("survey writes the host, each run and the outcome as JSON lines and exits 0") {
    FakeEcsEndpoint endpoint(ecs_fixture("ecs_exporter/fargate_task_metadata.json"), "{}");
    const auto survey = run_to_end(binary(), {"survey", "--sysroot", sysroot("fargate-e5-2686v4")},
                                   {{"HOSTPROBE_PARAMS", kSurveyShortCipher},
                                    {"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}},
                                   60s);
    INFO(survey.errors);
    CHECK(survey.status.code == 0);
    const auto lines = survey_lines(survey.output);
    REQUIRE(types_of(lines) == std::vector<std::string>{"hostprobe.host", "hostprobe.task_stats",
                                                        "hostprobe.run", "hostprobe.run",
                                                        "hostprobe.survey"});
    const json& host = lines[0]["host"];
    CHECK(host["cpu"]["model_name"] == "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz");
    CHECK(host["ecs"]["launch_type"] == "FARGATE");
    CHECK(host["schema_version"] == 1);
    // The task's containers, read once (the fake endpoint's stats are empty: none running).
    CHECK(lines[1]["task_stats"]["containers"].size() == 3);
    CHECK(lines[1]["task_stats"]["cpu_limit_cores"] == 0.25);
    CHECK(lines[2]["run"]["probe"] == "cpu");
    CHECK(lines[2]["run"]["trigger"] == "survey");
    const json& cipher = lines[3]["run"];
    CHECK(cipher["probe"] == "cipher");
    CHECK(cipher["state"] == "succeeded");
    CHECK(cipher["params"]["seconds"] == 0.3);
    REQUIRE(cipher["result"]["measurements"].size() == 1);
    CHECK(cipher["result"]["measurements"][0]["bytes_per_second"].get<double>() > 0);
    for (size_t i = 1; i < lines.size(); ++i) {
        const json& task = lines[i]["task"];
        CHECK(task["model_name"] == host["cpu"]["model_name"]);
        CHECK(task["microarchitecture"] == "Broadwell");
        CHECK(task["launch_type"] == "FARGATE");
        CHECK(task["cpu_limit_cores"] == 0.25);
        CHECK(task["dollars_per_hour"] == host["cost"]["dollars_per_hour"]);
        CHECK(task["task_arn"].get<std::string>().find(":task/") != std::string::npos);
    }
    const json& outcome = lines[4];
    CHECK(outcome["probes"] == json{"cpu", "cipher"});
    CHECK(outcome["succeeded"] == 2);
    CHECK(outcome["failed"] == 0);
    CHECK(outcome["interrupted_by"].is_null());
    CHECK(outcome["exit_code"] == 0);
}

TEST_CASE("survey --emf follows each JSON line with its CloudWatch EMF lines") {
    const auto survey = run_to_end(binary(),
                                   {"survey", "--sysroot", sysroot("fargate-e5-2676v3"), "--params",
                                    kSurveyShortCipher, "--emf", "--emf-namespace", "survey-test"},
                                   {}, 60s);
    INFO(survey.errors);
    CHECK(survey.status.code == 0);
    const auto lines = survey_lines(survey.output);
    REQUIRE(lines.size() > 5);
    CHECK(lines[0]["type"] == "hostprobe.host");
    CHECK(lines[1]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "survey-test");
    CHECK(lines.back()["type"] == "hostprobe.survey");
    // After the cipher run's JSON line come its EMF lines, one with the throughput metric.
    size_t cipher_line = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].value("type", "") == "hostprobe.run" && lines[i]["run"]["probe"] == "cipher")
            cipher_line = i;
    }
    REQUIRE(cipher_line > 1);
    bool throughput = false;
    for (size_t i = cipher_line + 1; i + 1 < lines.size(); ++i) {
        REQUIRE(lines[i].contains("_aws"));
        for (const auto& metric : lines[i]["_aws"]["CloudWatchMetrics"][0]["Metrics"])
            throughput = throughput || metric["Name"] == "CipherBytesPerSecond";
    }
    CHECK(throughput);
    const auto bad = run_to_end(binary(), {"survey", "--emf-namespace", "AWS/EC2"});
    CHECK(bad.status.code == 2);
}

TEST_CASE("survey in an ECS task reads every container's stats once: a JSON line and EMF lines") {
    FakeEcsEndpoint endpoint(ecs_fixture("ecs_exporter/fargate_task_metadata.json"), "{}",
                             FakeEcsEndpoint::Mode::serve,
                             ecs_fixture("ecs_exporter/fargate_task_stats.json"));
    const auto survey = run_to_end(
        binary(), {"survey", "--sysroot", sysroot("fargate-e5-2686v4"), "--probes", "cpu", "--emf"},
        {{"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}}, 60s);
    INFO(survey.errors);
    CHECK(survey.status.code == 0);
    const auto lines = survey_lines(survey.output);
    size_t at = 0;
    while (at < lines.size() && lines[at].value("type", "") != "hostprobe.task_stats")
        ++at;
    REQUIRE(at + 3 < lines.size());
    const json& task = lines[at]["task_stats"];
    CHECK(task["containers"].size() == 3);
    // One reading: the rates come from Docker's own previous reading (precpu, preread).
    CHECK(task["cpu_cores_used"].get<double>() ==
          doctest::Approx(0.007193303 / 10.000941384 + 0.079862443 / 9.999690712));
    CHECK(lines[at]["task"]["launch_type"] == "FARGATE");
    CHECK(lines[at + 1]["hostprobe_kind"] == "task");
    CHECK(lines[at + 1]["ContainersRunning"] == 2);
    CHECK(lines[at + 2]["Container"] == "prometheus");
    CHECK(lines[at + 3]["Container"] == "ecs-exporter");
    CHECK(endpoint.stats_requests() == 1);
}

TEST_CASE("survey takes --probes and --params-file like serve's, and refuses bad ones with 2") {
    TempTree files;
    files.write("params.json", kSurveyShortCipher);
    const auto survey = run_to_end(binary(),
                                   {"survey", "--sysroot", sysroot("fargate-e5-2670v2"), "--probes",
                                    "cipher", "--params-file", files.root() + "/params.json"},
                                   {}, 60s);
    INFO(survey.errors);
    CHECK(survey.status.code == 0);
    const auto lines = survey_lines(survey.output);
    REQUIRE(lines.size() == 3);
    CHECK(lines[1]["run"]["params"]["block_sizes"] == json{8192});
    CHECK(lines[1]["task"]["model_name"] == "Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz");
    CHECK(lines[1]["task"]["task_arn"].is_null());  // no ECS endpoint

    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"survey", "--probes", "cpu,ciphers"},
          {"survey", "--probes", ","},
          {"survey", "--params", R"({"cipher": {"seconds": -1}})"},
          {"survey", "--params", "{}", "--params-file", files.root() + "/params.json"},
          {"survey", "--probes", "disk", "--params", R"({"disk": {"directory": "/tmp"}})"},
          {"survey", "extra"}}) {
        const auto bad = run_to_end(binary(), args);
        INFO(bad.errors);
        CHECK(bad.status.code == 2);
        CHECK(bad.output.empty());  // nothing ran
        CHECK(bad.errors.find("Usage: hostprobe survey") != std::string::npos);
    }
}

TEST_CASE("a failed run still writes its line; survey exits 3 and leaves no file") {
    TempTree allowed;
    // A file size limit below the test file's size makes the disk run fail as it lays it out.
    const std::string command =
        "ulimit -f 100; exec \"$0\" survey --probes disk,cpu --disk-dir \"$1\" --params \"$2\"";
    const auto survey = run_to_end(
        "/bin/sh",
        {"-c", command, binary(), allowed.root(), disk_params(allowed.root(), R"(, "runtime": 1)")},
        {}, 60s);
    INFO(survey.errors);
    CHECK(survey.status.code == 3);
    const auto lines = survey_lines(survey.output);
    REQUIRE(types_of(lines) == std::vector<std::string>{"hostprobe.host", "hostprobe.run",
                                                        "hostprobe.run", "hostprobe.survey"});
    CHECK(lines[1]["run"]["probe"] == "disk");
    CHECK(lines[1]["run"]["state"] == "failed");
    CHECK(lines[1]["run"]["error"].get<std::string>().find("File too large") != std::string::npos);
    CHECK(lines[2]["run"]["state"] == "succeeded");
    CHECK(lines[3]["failed"] == 1);
    CHECK(lines[3]["exit_code"] == 3);
    CHECK_FALSE(has_test_files(allowed.root()));
}

TEST_CASE("SIGTERM cancels the survey: it writes what it has, exits 130 and leaves no file") {
    TempTree allowed;
    Process survey(binary(), {"survey", "--probes", "disk,cipher", "--disk-dir", allowed.root(),
                              "--params", disk_params(allowed.root(), R"(, "runtime": 120)")});
    REQUIRE(eventually([&] { return has_test_files(allowed.root()); }, 30s));
    survey.signal(SIGTERM);
    const auto status = survey.wait(30s);
    INFO(survey.errors());
    CHECK(status.exited);
    CHECK(status.code == 130);
    const auto lines = survey_lines(survey.output());
    REQUIRE(types_of(lines) == std::vector<std::string>{"hostprobe.host", "hostprobe.run",
                                                        "hostprobe.run", "hostprobe.survey"});
    CHECK(lines[1]["run"]["state"] == "cancelled");
    CHECK(lines[2]["run"]["probe"] == "cipher");
    CHECK(lines[2]["run"]["state"] == "cancelled");
    CHECK(lines[3]["interrupted_by"] == "SIGTERM");
    CHECK(lines[3]["cancelled"] == 2);
    CHECK(lines[3]["exit_code"] == 130);
    CHECK_FALSE(has_test_files(allowed.root()));
}
