// /task/stats joined with /task: ecs_exporter's real Fargate (cgroup v1, a stopped container as
// null) and EC2 (cgroup v2, a stopped container as {}) captures and AWS's documentation sample,
// every value checked against the number derived by hand from the JSON (see the fixtures'
// README), then hostile shapes.
#include "ecs/task_stats.hpp"

#include <doctest/doctest.h>

#include "support/ecs_documents.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe;
using namespace hostprobe::ecs;
using hostprobe::testing::ecs_fixture;
using nlohmann::json;

namespace {

TaskStatsReading parse_fixtures(const char* task, const char* stats) {
    auto reading =
        parse_task_stats(json::parse(ecs_fixture(task)), json::parse(ecs_fixture(stats)));
    REQUIRE(reading.ok());
    return *reading;
}

const ContainerReading& container_named(const TaskStatsReading& reading, const std::string& name) {
    for (const auto& container : reading.containers)
        if (container.name == name) return container;
    FAIL("no container " << name);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("ecs_exporter's Fargate capture: cgroup v1, a task limit, a stopped container as null") {
    auto reading = parse_fixtures("ecs_exporter/fargate_task_metadata.json",
                                  "ecs_exporter/fargate_task_stats.json");
    CHECK(reading.cpu_limit_cores == 0.25);
    CHECK(reading.memory_limit_bytes == 536870912u);
    REQUIRE(reading.containers.size() == 3);
    CHECK(reading.containers[0].name == "nonessential");  // /task's order
    CHECK(reading.warnings.empty());

    const auto& stopped = container_named(reading, "nonessential");
    CHECK_FALSE(stopped.stats.has_value());
    CHECK(stopped.known_status == "STOPPED");
    CHECK(stopped.exit_code == 0);
    CHECK(stopped.image == "alpine");

    const auto& prometheus = container_named(reading, "prometheus");
    REQUIRE(prometheus.stats.has_value());
    const ContainerStats& p = *prometheus.stats;
    CHECK(prometheus.known_status == "RUNNING");
    CHECK(prometheus.image == "prom/prometheus:v3.1.0");
    CHECK(prometheus.type == "NORMAL");
    CHECK(prometheus.health_status.empty());
    CHECK_FALSE(prometheus.restart_count.has_value());
    CHECK_FALSE(prometheus.exit_code.has_value());
    CHECK(p.cpu_ns == 932439492u);
    CHECK(p.read_unix_ns == 1740633769186680233);  // 2025-02-27T05:22:49.186680233Z
    CHECK(p.preread_unix_ns == 1740633759185738849);
    CHECK(p.precpu_ns == 932439492u - 7193303u);
    CHECK(p.memory_usage_bytes == 127934464u);
    CHECK(p.memory_max_usage_bytes == 128557056u);
    CHECK(p.memory_inactive_file_bytes == 52383744u);  // total_inactive_file
    CHECK(p.memory_working_set_bytes() == 75550720u);
    CHECK(p.memory_cache_bytes == 85426176u);  // total_cache
    CHECK(p.page_faults == 18975u);
    CHECK(p.major_page_faults == 693u);
    CHECK(p.blkio_read_bytes == 89202688u);  // "Read" of 259:1 and 259:0; not Sync or Total
    CHECK(p.blkio_write_bytes == 0u);
    CHECK_FALSE(p.pids.has_value());  // pids_stats {} on Fargate
    CHECK(p.throttled_periods == 0u);
    REQUIRE(p.interfaces.size() == 1);
    CHECK(p.interfaces[0].name == "eth1");
    CHECK(p.interfaces[0].receive_bytes == 129045374u);
    CHECK(p.interfaces[0].receive_packets == 88933u);
    CHECK(p.interfaces[0].transmit_bytes == 347839u);
    CHECK(p.interfaces[0].transmit_packets == 3501u);
    CHECK(p.interfaces[0].receive_errors + p.interfaces[0].receive_dropped +
              p.interfaces[0].transmit_errors + p.interfaces[0].transmit_dropped ==
          0u);
    // No container memory limit: the task's 512 MiB, as ecs_exporter reports it.
    CHECK(prometheus.memory_limit_bytes == 536870912u);
    CHECK(prometheus.memory_limit_source == "task");

    const ContainerStats& e = *container_named(reading, "ecs-exporter").stats;
    CHECK(e.cpu_ns == 322633383u);
    CHECK(e.memory_usage_bytes == 84111360u);
    CHECK(e.memory_working_set_bytes() == 45010944u);
    CHECK(e.memory_cache_bytes == 42442752u);
    CHECK(e.page_faults == 17358u);
    CHECK(e.major_page_faults == 297u);
    CHECK(e.blkio_read_bytes == 43294720u);
    CHECK(e.blkio_write_bytes == 4096u);
    CHECK(e.interfaces.at(0).receive_bytes == 129046293u);
    CHECK(e.interfaces.at(0).transmit_packets == 3507u);
}

TEST_CASE("ecs_exporter's EC2 capture: cgroup v2, container limits, a stopped container as {}") {
    auto reading =
        parse_fixtures("ecs_exporter/ec2_task_metadata.json", "ecs_exporter/ec2_task_stats.json");
    CHECK_FALSE(reading.cpu_limit_cores.has_value());  // no task Limits on this EC2 task
    CHECK_FALSE(reading.memory_limit_bytes.has_value());
    REQUIRE(reading.containers.size() == 3);
    CHECK_FALSE(container_named(reading, "nonessential").stats.has_value());
    CHECK(container_named(reading, "nonessential").exit_code == 0);

    const auto& exporter = container_named(reading, "ecs-exporter");
    CHECK(exporter.memory_limit_bytes == 268435456u);  // the container's 256 MiB
    CHECK(exporter.memory_limit_source == "container");
    const ContainerStats& e = *exporter.stats;
    CHECK(e.cpu_ns == 331125000u);
    CHECK(e.memory_usage_bytes == 65249280u);
    CHECK_FALSE(e.memory_max_usage_bytes.has_value());  // v2 has none
    CHECK(e.memory_inactive_file_bytes == 17641472u);
    CHECK(e.memory_working_set_bytes() == 47607808u);
    CHECK(e.memory_cache_bytes == 25296896u);  // v2 "file"
    CHECK(e.page_faults == 17631u);
    CHECK(e.major_page_faults == 1120u);
    CHECK(e.blkio_read_bytes == 60960768u);  // v2 writes "read" and "write"
    CHECK(e.blkio_write_bytes == 57344u);
    CHECK(e.pids == 33u);
    CHECK(e.interfaces.at(0).name == "eth0");
    CHECK(e.interfaces.at(0).receive_bytes == 101869u);
    CHECK(e.interfaces.at(0).transmit_bytes == 43958u);

    const ContainerStats& p = *container_named(reading, "prometheus").stats;
    CHECK(p.cpu_ns == 566060000u);
    CHECK(p.memory_usage_bytes == 60981248u);
    CHECK(p.memory_working_set_bytes() == 49934336u);
    CHECK(p.memory_cache_bytes == 19619840u);
    CHECK(p.page_faults == 18768u);
    CHECK(p.major_page_faults == 1133u);
    CHECK(p.blkio_read_bytes == 99926016u);
    CHECK(p.blkio_write_bytes == 274432u);
    CHECK(p.pids == 25u);
    CHECK(p.interfaces.at(0).receive_bytes == 45368u);
}

TEST_CASE("AWS's sample pairs stats and metadata of different tasks: stats entries still count") {
    auto reading =
        parse_fixtures("awsdocs_ec2_v4_task_metadata.json", "awsdocs_ec2_v4_task_stats.json");
    // The two /task containers have no stats; the two stats entries are named by their own
    // stats name (without Docker's "/").
    CHECK(reading.containers.size() == 4);
    int with_stats = 0;
    for (const auto& container : reading.containers) {
        if (!container.stats) continue;
        ++with_stats;
        CHECK(container.name.front() != '/');
        CHECK(container.known_status.empty());
    }
    CHECK(with_stats == 2);
}

TEST_CASE("Docker's times: nanoseconds kept, Go's zero time is none") {
    CHECK(parse_docker_time_ns("2025-02-27T05:22:49.186680233Z") == 1740633769186680233);
    CHECK(parse_docker_time_ns("2025-02-27T05:22:49Z") == 1740633769000000000);
    CHECK(parse_docker_time_ns("2025-02-27T05:22:49.5Z") == 1740633769500000000);
    CHECK_FALSE(parse_docker_time_ns("0001-01-01T00:00:00Z").has_value());
    CHECK_FALSE(parse_docker_time_ns("").has_value());
    CHECK_FALSE(parse_docker_time_ns("2025-02-27T05:22:49.1234567890Z").has_value());
    CHECK_FALSE(parse_docker_time_ns("2025-02-27T05:22:49.12a4Z").has_value());
    CHECK_FALSE(parse_docker_time_ns("2025-02-27T05:22:49+01:00").has_value());
    CHECK_FALSE(parse_docker_time_ns("9999-12-31T23:59:59Z").has_value());
}

TEST_CASE("hostile stats: bad counters are left out with a warning, never wrapped") {
    json task = {{"Containers", json::array({{{"Name", "app"}, {"DockerId", "a"}}})}};
    json stats = {{"a",
                   {{"read", "2026-12-06T10:00:00Z"},
                    {"cpu_stats", {{"cpu_usage", {{"total_usage", -5}}}}},
                    {"memory_stats", {{"usage", 1e300}, {"stats", {{"pgfault", 2.5}}}}},
                    {"pids_stats", {{"current", "many"}}},
                    {"networks", {{"eth0", {{"rx_bytes", -1}}}}}}}};
    auto reading = parse_task_stats(task, stats);
    REQUIRE(reading.ok());
    const ContainerStats& s = *reading->containers.at(0).stats;
    CHECK_FALSE(s.cpu_ns.has_value());
    CHECK_FALSE(s.memory_usage_bytes.has_value());
    CHECK_FALSE(s.memory_working_set_bytes().has_value());
    CHECK_FALSE(s.page_faults.has_value());
    CHECK_FALSE(s.pids.has_value());
    CHECK(s.interfaces.empty());  // an interface with a bad counter is left out whole
    CHECK(reading->warnings.size() >= 4);
    CHECK(reading->warnings.size() <= kMaxTaskStatsWarnings);

    CHECK_FALSE(parse_task_stats(json::array(), json::object()).ok());
    CHECK_FALSE(parse_task_stats(task, json::array()).ok());
    CHECK_FALSE(parse_task_stats(task, json(nullptr)).ok());
}

TEST_CASE("100 containers: the first 20 kept, the rest counted and warned of") {
    const auto documents = hostprobe::testing::task_of_containers(100, [](int) {
        json networks = json::object();
        for (int n = 0; n < 20; ++n)
            networks["eth" + std::to_string(n)] = {{"rx_bytes", 1}};
        return json{{"read", "2026-12-06T10:00:00Z"}, {"networks", networks}};
    });
    auto reading = parse_task_stats(documents.task, documents.stats);
    REQUIRE(reading.ok());
    CHECK(reading->containers.size() == kMaxTaskContainers);
    CHECK(reading->containers_dropped == 80);
    CHECK(reading->warnings.size() <= kMaxTaskStatsWarnings);
    CHECK(reading->warnings.back().find("left out") != std::string::npos);
}

TEST_CASE("names and images are made fit for labels; a duplicate name is left out") {
    json task = {
        {"Containers",
         json::array({{{"Name", "app\n\x01"}, {"DockerId", "a"}, {"Image", std::string(1000, 'x')}},
                      {{"Name", "app\n\x01"}, {"DockerId", "b"}},
                      {{"Name", ""}, {"DockerId", "c"}}})}};
    auto reading = parse_task_stats(task, json::object());
    REQUIRE(reading.ok());
    REQUIRE(reading->containers.size() == 1);
    CHECK(reading->containers[0].name == "app??");
    CHECK(reading->containers[0].image.size() == 255);
    CHECK_FALSE(reading->warnings.empty());
}
