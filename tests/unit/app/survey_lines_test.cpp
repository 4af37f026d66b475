// The survey's line shapes: "type" first, "task" before "run", null where a fact is unknown.
#include "app/survey_lines.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;
using nlohmann::json;

TEST_CASE("survey lines start with their type, and run lines carry the task before the run") {
    const json host = {{"cpu", {{"model_name", "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz"}}},
                       {"guess", {{"microarchitecture", "Broadwell"}}},
                       {"hypervisor", {{"vendor", "Xen"}}},
                       {"ecs",
                        {{"task_arn", "arn:aws:ecs:us-east-1:1:task/c/abc"},
                         {"family", "hostprobe-survey"},
                         {"launch_type", "FARGATE"},
                         {"availability_zone", "us-east-1b"},
                         {"cpu_limit_cores", 0.25},
                         {"memory_limit_bytes", 536870912}}},
                       {"cost", {{"dollars_per_hour", 0.0123425}}}};
    const json identity = app::task_identity(host);
    CHECK(identity["model_name"] == "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz");
    CHECK(identity["microarchitecture"] == "Broadwell");
    CHECK(identity["task_arn"] == "arn:aws:ecs:us-east-1:1:task/c/abc");
    CHECK(identity["dollars_per_hour"] == 0.0123425);

    const std::string host_text = app::host_line(host);
    CHECK(host_text.rfind(R"({"type":"hostprobe.host","host":{)", 0) == 0);
    CHECK(json::parse(host_text)["host"] == host);

    runs::Run run;
    run.id = "r1";
    run.probe = "cipher";
    run.state = runs::RunState::failed;
    run.error = "out of memory";
    const std::string run_text = app::run_line(identity, run);
    CHECK(run_text.rfind(R"({"type":"hostprobe.run","task":{)", 0) == 0);
    CHECK(run_text.find(R"(,"run":{)") != std::string::npos);
    const json parsed = json::parse(run_text);
    CHECK(parsed["run"]["state"] == "failed");
    CHECK(parsed["run"]["error"] == "out of memory");
    CHECK(parsed["task"] == identity);
    CHECK(run_text.find('\n') == std::string::npos);

    app::SurveyOutcome outcome{.probes = {"cpu", "cipher"}, .succeeded = 1, .failed = 1};
    outcome.exit_code = 3;
    const json last = json::parse(app::survey_line(identity, outcome));
    CHECK(last["type"] == "hostprobe.survey");
    CHECK(last["probes"] == json{"cpu", "cipher"});
    CHECK(last["failed"] == 1);
    CHECK(last["interrupted_by"].is_null());
    outcome.interrupted_by = "SIGTERM";
    CHECK(json::parse(app::survey_line(identity, outcome))["interrupted_by"] == "SIGTERM");
}

TEST_CASE("a host without ECS metadata or cost gives a task of nulls, not an error") {
    const json identity = app::task_identity({{"cpu", {{"model_name", "x"}}}, {"ecs", nullptr}});
    CHECK(identity["model_name"] == "x");
    CHECK(identity["task_arn"].is_null());
    CHECK(identity["microarchitecture"].is_null());
    CHECK(identity["dollars_per_hour"].is_null());
    CHECK(app::task_identity(json::object())["model_name"].is_null());
}
