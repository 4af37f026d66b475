// The EMF lines of the host and of each probe's finished run: every line keeps the rules of
// AWS's specification (emf_checks.hpp), dimensions come from ECS task metadata when it answered
// and are "none" otherwise, and a run's many cells are spread over many lines.
#include "emf/documents.hpp"

#include <doctest/doctest.h>

#include "ecs/task_metadata.hpp"
#include "ecs/task_stats_examples.hpp"
#include "emf/probe_groups.hpp"
#include "support/paths.hpp"
#include "unit/emf/emf_checks.hpp"

using namespace hostprobe;
using hostprobe::testing::emf_metric_names;
using hostprobe::testing::emf_rule_problems;

namespace {

host::HostFacts emf_test_host() {
    host::HostFacts facts;
    host::CpuType cpu;
    cpu.model_name = "AMD EPYC 7R13 Processor";
    facts.cpu_types.push_back(cpu);
    facts.guess.microarchitecture = "Zen 3";
    facts.cpu_budget = host::compute_cpu_budget(std::nullopt, 2);
    return facts;
}

task::TaskFacts emf_fargate_facts() {
    const auto task =
        nlohmann::json::parse(testing::fixture_text("ecs/ecs_exporter/fargate_task_metadata.json"));
    auto metadata = ecs::parse_task_metadata(task, nullptr);
    REQUIRE(metadata.ok());
    return task::with_ecs(emf_test_host(), *metadata, task::Prices{});
}

runs::Run emf_finished_run(const std::string& probe, const nlohmann::json& result) {
    runs::Run run;
    run.id = "r-1";
    run.probe = probe;
    run.params = nlohmann::json::object();
    run.trigger = "api";
    run.state = runs::RunState::succeeded;
    run.created_at = WallClock::time_point(std::chrono::milliseconds(1'700'000'000'000));
    run.started_at = run.created_at;
    run.finished_at = run.created_at + std::chrono::seconds(3);
    run.result = result;
    return run;
}

void require_valid_lines(const std::vector<std::string>& lines) {
    for (const auto& line : lines) {
        const auto problems = emf_rule_problems(line);
        CHECK_MESSAGE(problems.empty(), line.substr(0, 300) << ": " << problems.front());
    }
}

probes::CipherResult emf_cipher_table(size_t ciphers, size_t block_sizes) {
    probes::CipherResult result;
    for (size_t c = 0; c < ciphers; ++c) {
        for (size_t b = 0; b < block_sizes; ++b) {
            probes::CipherCell cell;
            cell.cipher = "cipher-" + std::to_string(c);
            cell.block_bytes = size_t{16} << b;
            cell.threads = 2;
            cell.seconds = 1;
            cell.ops = 1000;
            cell.bytes = 1000 * cell.block_bytes;
            cell.bytes_per_second = static_cast<double>(cell.bytes);
            cell.cpu_bytes_per_second = static_cast<double>(cell.bytes) / 2;
            cell.cpu_seconds = 2;
            result.measurements.push_back(cell);
        }
    }
    result.threads = 2;
    result.throttled = true;
    result.steal_seconds = 0.5;
    return result;
}

}  // namespace

TEST_CASE("the host line outside ECS: fleet dimensions are none, one task, GET /v1/host inside") {
    const auto facts = task::task_facts(emf_test_host(), task::Prices{});
    const std::string line = emf::host_document(facts, {"hostprobe"}, 1'700'000'000'123);
    require_valid_lines({line});
    const auto document = nlohmann::json::parse(line);
    CHECK(document["_aws"]["Timestamp"] == 1'700'000'000'123);
    CHECK(document["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "hostprobe");
    CHECK(document["CpuModel"] == "AMD EPYC 7R13 Processor");
    CHECK(document["Microarchitecture"] == "Zen 3");
    CHECK(document["LaunchType"] == "none");
    CHECK(document["AvailabilityZone"] == "none");
    CHECK(document["TaskFamily"] == "none");
    CHECK(document["task_arn"] == "none");
    CHECK(document["Tasks"] == 1);
    CHECK(document["VisibleCpus"] == 2);
    CHECK(document["hostprobe_kind"] == "host");
    CHECK(document["hostprobe_host"]["ecs"].is_null());
}

TEST_CASE("the host line in ECS names the task's launch type, zone and family") {
    const std::string line = emf::host_document(emf_fargate_facts(), {"fleet/x"}, 1);
    require_valid_lines({line});
    const auto document = nlohmann::json::parse(line);
    CHECK(document["LaunchType"] == "FARGATE");
    CHECK(document["AvailabilityZone"] == "us-east-1a");
    CHECK(document["TaskFamily"] == "prom-ecs-exporter-sandbox-main-fargate");
    CHECK(document["task_arn"] != "none");
    CHECK(document["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "fleet/x");
    const auto names = emf_metric_names(document);
    CHECK(std::find(names.begin(), names.end(), "EcsCpuLimitCores") != names.end());
    CHECK(std::find(names.begin(), names.end(), "TaskCostPerHour") != names.end());
    const auto sets = document["_aws"]["CloudWatchMetrics"][0]["Dimensions"];
    CHECK(sets ==
          nlohmann::json::parse(
              R"([["CpuModel","Microarchitecture"],)"
              R"(["TaskFamily","LaunchType","AvailabilityZone","CpuModel","Microarchitecture"]])"));
}

TEST_CASE("a cipher run: a summary with the whole result, then one line per cell") {
    const auto result = emf_cipher_table(2, 3);
    const auto lines =
        emf::run_documents(emf_finished_run("cipher", result), emf_fargate_facts(), {});
    REQUIRE(lines.size() == 1 + 6);
    require_valid_lines(lines);
    const auto summary = nlohmann::json::parse(lines[0]);
    CHECK(summary["hostprobe_kind"] == "run");
    CHECK(summary["Probe"] == "cipher");
    CHECK(summary["hostprobe_result"] == nlohmann::json(result));
    CHECK(summary["RunSeconds"] == doctest::Approx(3));
    CHECK(summary["RunFailed"] == 0);
    CHECK(summary["CipherThrottled"] == 1);
    CHECK(summary["CipherStealSeconds"] == 0.5);
    CHECK(summary["_aws"]["Timestamp"] == 1'700'000'003'000);
    const auto cell = nlohmann::json::parse(lines[2]);
    CHECK(cell["hostprobe_kind"] == "measurement");
    CHECK(cell["run_id"] == "r-1");
    CHECK(cell["Cipher"] == "cipher-0");
    CHECK(cell["BlockBytes"] == "32");
    CHECK(cell["Threads"] == "2");
    CHECK(cell["CipherBytesPerSecond"] == 32000);
    CHECK(cell["_aws"]["CloudWatchMetrics"][0]["Metrics"][0] ==
          nlohmann::json{{"Name", "CipherBytesPerSecond"}, {"Unit", "Bytes/Second"}});
    CHECK_FALSE(cell.contains("hostprobe_result"));
}

TEST_CASE("a cipher table of 240 cells makes 240 lines, none over 100 metrics or the size limit") {
    const auto lines = emf::run_documents(emf_finished_run("cipher", emf_cipher_table(30, 8)),
                                          task::task_facts(emf_test_host(), {}), {});
    CHECK(lines.size() == 241);
    require_valid_lines(lines);
}

TEST_CASE("more than 100 metrics in one document become several directives, all at the root") {
    emf::DocumentParts parts;
    parts.namespace_name = "hostprobe";
    parts.timestamp_ms = 5;
    parts.dimensions = {{"Probe", "cipher"}};
    parts.dimension_sets = {{"Probe"}};
    for (int i = 0; i < 250; ++i)
        parts.metrics.push_back({"M" + std::to_string(i), emf::Unit::count, double(i)});
    const std::string line = emf::document_line(parts);
    require_valid_lines({line});
    const auto document = nlohmann::json::parse(line);
    const auto& directives = document["_aws"]["CloudWatchMetrics"];
    REQUIRE(directives.size() == 3);
    CHECK(directives[0]["Metrics"].size() == 100);
    CHECK(directives[2]["Metrics"].size() == 50);
    CHECK(directives[2]["Metrics"][49]["Name"] == "M249");
    CHECK(document["M249"] == 249);
}

TEST_CASE("dimension values: empty is none, long ones are cut to 1024 bytes of valid UTF-8") {
    CHECK(emf::dimension_value("") == "none");
    CHECK(emf::dimension_value("Graviton3") == "Graviton3");
    std::string long_value(1023, 'a');
    long_value += "\xC3\xA9tail";  // é straddles the 1024th byte
    const std::string cut = emf::dimension_value(long_value);
    CHECK(cut.size() == 1023);
    CHECK(emf::dimension_value("bad\xFF") == "bad\xEF\xBF\xBD");
}

TEST_CASE("a result too large for one event leaves the summary without it, saying why") {
    auto result = emf_cipher_table(1, 1);
    nlohmann::json big = result;
    big["padding"] = std::string(emf::kMaxDocumentBytes, 'x');
    auto run = emf_finished_run("cipher", big);
    const auto lines = emf::run_documents(run, task::task_facts(emf_test_host(), {}), {});
    REQUIRE(lines.size() == 2);
    require_valid_lines(lines);
    const auto summary = nlohmann::json::parse(lines[0]);
    CHECK(summary["hostprobe_result"].is_null());
    CHECK(summary["hostprobe_result_dropped"].get<std::string>().find("GET /v1/runs/r-1") !=
          std::string::npos);
    CHECK(summary["CipherThrottled"] == 1);  // the metrics stay
}

TEST_CASE("a failed run without a result is one summary line with RunFailed 1") {
    auto run = emf_finished_run("disk", nullptr);
    run.state = runs::RunState::failed;
    run.error = "no allowed directory";
    const auto lines = emf::run_documents(run, task::task_facts(emf_test_host(), {}), {});
    REQUIRE(lines.size() == 1);
    require_valid_lines(lines);
    const auto summary = nlohmann::json::parse(lines[0]);
    CHECK(summary["RunFailed"] == 1);
    CHECK(summary["state"] == "failed");
    CHECK(summary["error"] == "no allowed directory");
}

TEST_CASE("a result that does not parse gives the summary alone, with the reason") {
    const auto lines = emf::run_documents(emf_finished_run("files", {{"ops", 3}}),
                                          task::task_facts(emf_test_host(), {}), {});
    REQUIRE(lines.size() == 1);
    require_valid_lines(lines);
    CHECK(nlohmann::json::parse(lines[0]).contains("hostprobe_metrics_error"));
}

TEST_CASE("disk, files and system results as metric groups with their own dimensions") {
    probes::DiskResult disk;
    disk.job_options.rw = "randrw";
    disk.job_options.bs = "16k";
    disk.read.total_ios = 100;
    disk.read.iops = 50;
    disk.read.bw_bytes = 800'000;
    disk.read.clat.count = 100;
    disk.read.clat.mean = 150'000;
    disk.read.clat.percentiles.fill(200'000);
    const auto disk_groups = emf::disk_groups(disk);
    REQUIRE(disk_groups.size() == 1);  // nothing written
    CHECK(disk_groups[0].dimensions[2].value == "read");
    CHECK(disk_groups[0].metrics[0].name == "DiskIops");
    const auto p99 = std::find_if(disk_groups[0].metrics.begin(), disk_groups[0].metrics.end(),
                                  [](const emf::Metric& m) { return m.name == "DiskLatencyP99"; });
    REQUIRE(p99 != disk_groups[0].metrics.end());
    CHECK(p99->value == 200);
    CHECK(p99->unit == emf::Unit::microseconds);

    probes::FilesResult files;
    files.ops["create"].ops_per_second = 1000;
    files.ops["stat"].ops_per_second = 90000;
    const auto files_groups = emf::files_groups(files);
    REQUIRE(files_groups.size() == 2);
    CHECK(files_groups[1].dimensions[0].value == "stat");
    CHECK(files_groups[1].metrics.size() == 1);  // no latency timed

    probes::SystemResult system;
    system.tests.push_back({"dhrystone", "Dhrystone 2", "lps", 4, 1e8, 116700, 8568.9, 10});
    system.index.push_back({4, 1234.5, 1});
    system.index.push_back({1, std::nullopt, 0});
    const auto system_groups = emf::system_groups(system);
    REQUIRE(system_groups.size() == 2);
    CHECK(system_groups[0].dimensions[1].value == "4");
    CHECK(system_groups[1].dimensions[0].value == "index");
    CHECK(system_groups[1].metrics[0].value == 1234.5);

    for (const char* probe : {"disk", "files", "system"}) {
        const nlohmann::json result = std::string(probe) == "disk"    ? nlohmann::json(disk)
                                      : std::string(probe) == "files" ? nlohmann::json(files)
                                                                      : nlohmann::json(system);
        const auto lines =
            emf::run_documents(emf_finished_run(probe, result), emf_fargate_facts(), {});
        CHECK(lines.size() > 1);
        require_valid_lines(lines);
    }
}

TEST_CASE("metrics that are not finite numbers are left out") {
    emf::MetricGroup group;
    group.add("A", emf::Unit::none, std::nan(""));
    group.add("B", emf::Unit::none, 1.0 / 0.0);
    group.add("C", emf::Unit::none, 2);
    REQUIRE(group.metrics.size() == 1);
    CHECK(group.metrics[0].name == "C");
}

TEST_CASE("the ECS task's stats: a task line, then one per running container") {
    const auto snapshot = ecs::example_full_task_stats();
    const auto lines = emf::task_documents(snapshot, emf_fargate_facts(), {"fleet/x"});
    require_valid_lines(lines);
    REQUIRE(lines.size() == 2);  // the task, and "app" (init is stopped)
    const auto task = nlohmann::json::parse(lines[0]);
    CHECK(task["hostprobe_kind"] == "task");
    CHECK(task["TaskCpuCoresUsed"] == 0.2);
    CHECK(task["TaskCpuLimitUsed"].get<double>() == doctest::Approx(80));
    CHECK(task["TaskCpuSaturation"] == 50.0);
    CHECK(task["TaskMemoryWorkingSet"] == 470.0 * 1024 * 1024);
    CHECK(task["ContainersRunning"] == 1);
    CHECK(task["ContainersNotRunning"] == 1);
    CHECK(task["LaunchType"] == "FARGATE");
    CHECK_FALSE(task.contains("Container"));
    const auto app = nlohmann::json::parse(lines[1]);
    CHECK(app["Container"] == "app");
    CHECK(app["ContainerCpuCores"] == 0.2);
    CHECK(app["ContainerMemoryLimitUsed"].get<double>() == doctest::Approx(100.0 * 470 / 512));
    CHECK(app["ContainerRestarts"] == 1);
    CHECK(app["_aws"]["CloudWatchMetrics"][0]["Dimensions"][0] ==
          nlohmann::json::parse(R"(["CpuModel","Microarchitecture","Container"])"));
    CHECK(emf::task_documents(ecs::TaskStatsSnapshot{}, emf_fargate_facts(), {}).empty());
}
