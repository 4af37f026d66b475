// GET /v1/task's JSON and text: the contract's fields from a full and a sparse snapshot, the
// saturation explained, the sidecar's own throttling beside it, the warnings.
#include "report/task_json.hpp"

#include <doctest/doctest.h>

#include "ecs/task_stats_examples.hpp"

using namespace hostprobe;
using nlohmann::json;

TEST_CASE("the full example: every container fact, the task against its limits") {
    const auto snapshot = ecs::example_full_task_stats();
    const host::ThrottlingCounters throttling{
        .periods = 1000, .throttled_periods = 250, .throttled_seconds = 12.5};
    const json task = report::task_json(snapshot, throttling);
    CHECK(task["cpu_limit_cores"] == 0.25);
    CHECK(task["memory_limit_bytes"] == 536870912);
    CHECK(task["cpu_cores_used"] == 0.2);
    CHECK(task["cpu_limit_used_ratio"].get<double>() == doctest::Approx(0.8));
    CHECK(task["interval_seconds"] == 10.0);
    CHECK(task["cpu_saturation"]["ratio"] == 0.5);
    CHECK(task["cpu_saturation"]["window_seconds"] == 60.0);
    CHECK(task["cpu_saturation"]["explanation"].get<std::string>().find(
              "throttling_data stays 0") != std::string::npos);
    CHECK(task["sidecar_cgroup_throttling"]["throttled_periods"] == 250);
    CHECK(task["memory_working_set_bytes"] == 470u << 20);
    CHECK(task["read_at"] == "2025-12-06T10:00:00.000Z");
    CHECK(task["reads"] == 42);
    CHECK(task["error"] == "/v4/abc/task/stats: HTTP 500");
    REQUIRE(task["containers"].size() == 2);
    const json& app = task["containers"][0];
    CHECK(app["name"] == "app");
    CHECK(app["running"] == true);
    CHECK(app["health_status"] == "HEALTHY");
    CHECK(app["restart_count"] == 1);
    CHECK(app["cpu_seconds"] == 93.0);
    CHECK(app["cpu_cores"] == 0.2);
    CHECK(app["memory_working_set_bytes"] == 470u << 20);
    CHECK(app["memory_limit_used_ratio"].get<double>() == doctest::Approx(470.0 / 512));
    CHECK(app["memory_limit_source"] == "task");
    CHECK(app["networks"][0]["interface"] == "eth1");
    CHECK(app["networks"][0]["transmit_dropped"] == 4);
    const json& init = task["containers"][1];
    CHECK(init["running"] == false);
    CHECK(init["exit_code"] == 1);
    CHECK(init["cpu_seconds"].is_null());
    CHECK(init["networks"].empty());
    const auto warnings = task["warnings"].get<std::vector<std::string>>();
    REQUIRE(warnings.size() == 3);
    CHECK(warnings[0] == "the newest read failed: /v4/abc/task/stats: HTTP 500");
    CHECK(warnings[1] == "app: memory working set 470.0 MiB is 92% of its 512.0 MiB limit (task)");
}

TEST_CASE("the sparse example: nulls where nothing is known, never a made-up zero") {
    const json task = report::task_json(ecs::example_sparse_task_stats(), std::nullopt);
    CHECK(task["cpu_limit_cores"].is_null());
    CHECK(task["cpu_cores_used"].is_null());
    CHECK(task["cpu_limit_used_ratio"].is_null());
    CHECK(task["interval_seconds"].is_null());
    CHECK(task["cpu_saturation"]["ratio"].is_null());
    CHECK(task["sidecar_cgroup_throttling"].is_null());
    CHECK(task["error"].is_null());
    CHECK(task["warnings"].empty());
    CHECK(task["containers"][0]["memory_usage_bytes"].is_null());
    CHECK(task["containers"][0]["cpu_seconds"] == 1.0);
}

TEST_CASE("the text report and the host report's one line") {
    const auto snapshot = ecs::example_full_task_stats();
    CHECK(report::task_summary(snapshot) ==
          "0.20 of 0.25 vCPU (80%), CPU-saturated 50% of the last minute, working set 470 MiB of "
          "512 MiB, 2 containers (1 not running), newest read failed");
    const std::string text = report::task_text(snapshot, host::ThrottlingCounters{1000, 250, 12.5});
    CHECK(text.find("Sidecar throttling:  250 of 1000 periods, 12.500 s throttled") !=
          std::string::npos);
    CHECK(text.find("  app: RUNNING (HEALTHY), 1 restart, 0.20 cores, working set 470 MiB of "
                    "512 MiB (92%), eth1 rx") != std::string::npos);
    CHECK(text.find("block I/O read 85.1 MiB write 4 KiB, 18975 page faults (693 major), 12 "
                    "processes\n") != std::string::npos);
    CHECK(text.find("  init: STOPPED, exit code 1\n") != std::string::npos);
    CHECK(text.find("Warning:  app: memory working set") != std::string::npos);
    CHECK(report::task_summary(ecs::example_sparse_task_stats()) == "1 container");
}
