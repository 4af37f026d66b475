// The task's containers on /metrics, held to prometheus-community/ecs_exporter on the same
// stats documents (its collector's formulas, ecscollector/collector.go): CPU seconds =
// total_usage x 1e-9, memory usage as reported, the limit from /task (container, else task),
// page cache (v1 total_cache, v2 file), page faults, per-interface network counters. Every
// value is the number derived by hand from the JSON (tests/fixtures/ecs/README.txt).
#include "metrics/task_stats_collector.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "ecs/task_stats_examples.hpp"
#include "support/daemon.hpp"
#include "support/ecs_documents.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe;
using hostprobe::testing::ecs_fixture;
using nlohmann::json;
using Labels = std::map<std::string, std::string>;

namespace {

std::shared_ptr<const ecs::TaskStatsSnapshot> snapshot_of(const char* task, const char* stats) {
    auto reading =
        ecs::parse_task_stats(json::parse(ecs_fixture(task)), json::parse(ecs_fixture(stats)));
    REQUIRE(reading.ok());
    ecs::TaskStatsTracker tracker;
    return tracker.take(std::move(reading), WallClock::now());
}

// The sample of `family` whose labels are exactly `labels`, or none.
std::optional<double> sample_of(const std::vector<prometheus::MetricFamily>& families,
                                const std::string& family, const Labels& labels) {
    for (const auto& f : families) {
        if (f.name != family) continue;
        for (const auto& metric : f.metric) {
            Labels have;
            for (const auto& label : metric.label)
                have[label.name] = label.value;
            if (have != labels) continue;
            return f.type == prometheus::MetricType::Counter ? metric.counter.value
                                                             : metric.gauge.value;
        }
    }
    return std::nullopt;
}

// ecs_exporter's value (Go float64 arithmetic) against ours, to 1e-12 relative.
void agrees(const std::vector<prometheus::MetricFamily>& families, const std::string& family,
            const Labels& labels, double expected) {
    INFO(family);
    auto value = sample_of(families, family, labels);
    REQUIRE(value.has_value());
    CHECK(*value == doctest::Approx(expected).epsilon(1e-12));
}

}  // namespace

TEST_CASE("Fargate capture: every container value as ecs_exporter computes it") {
    auto snapshot = snapshot_of("ecs_exporter/fargate_task_metadata.json",
                                "ecs_exporter/fargate_task_stats.json");
    const auto f = metrics::task_stats_families(*snapshot);
    const Labels prometheus{{"container", "prometheus"}};
    const Labels exporter{{"container", "ecs-exporter"}};
    // ecs_container_cpu_usage_seconds_total = total_usage * (1/1e9)
    agrees(f, "hostprobe_ecs_container_cpu_seconds_total", prometheus, 932439492 * (1 / 1e9));
    agrees(f, "hostprobe_ecs_container_cpu_seconds_total", exporter, 322633383 * (1 / 1e9));
    // ecs_container_memory_usage_bytes = memory_stats.usage
    agrees(f, "hostprobe_ecs_container_memory_usage_bytes", prometheus, 127934464);
    agrees(f, "hostprobe_ecs_container_memory_usage_bytes", exporter, 84111360);
    // ecs_container_memory_limit_bytes: no container limit, the task's 512 MiB
    agrees(f, "hostprobe_ecs_container_memory_limit_bytes",
           {{"container", "prometheus"}, {"source", "task"}}, 536870912);
    // ecs_container_memory_page_cache_size_bytes = total_cache (v1)
    agrees(f, "hostprobe_ecs_container_memory_cache_bytes", prometheus, 85426176);
    agrees(f, "hostprobe_ecs_container_memory_cache_bytes", exporter, 42442752);
    // ecs_container_memory_(major_)page_faults_total = total_pgfault, total_pgmajfault
    agrees(f, "hostprobe_ecs_container_memory_page_faults_total", prometheus, 18975);
    agrees(f, "hostprobe_ecs_container_memory_major_page_faults_total", prometheus, 693);
    agrees(f, "hostprobe_ecs_container_memory_page_faults_total", exporter, 17358);
    agrees(f, "hostprobe_ecs_container_memory_major_page_faults_total", exporter, 297);
    // ecs_network_*{interface="eth1"}: the last container's (ecs-exporter); ours per container
    const Labels exporter_eth1{{"container", "ecs-exporter"}, {"interface", "eth1"}};
    agrees(f, "hostprobe_ecs_container_network_receive_bytes_total", exporter_eth1, 129046293);
    agrees(f, "hostprobe_ecs_container_network_receive_packets_total", exporter_eth1, 88938);
    agrees(f, "hostprobe_ecs_container_network_transmit_bytes_total", exporter_eth1, 348223);
    agrees(f, "hostprobe_ecs_container_network_transmit_packets_total", exporter_eth1, 3507);
    for (const char* zero : {"hostprobe_ecs_container_network_receive_errors_total",
                             "hostprobe_ecs_container_network_receive_packets_dropped_total",
                             "hostprobe_ecs_container_network_transmit_errors_total",
                             "hostprobe_ecs_container_network_transmit_packets_dropped_total"})
        agrees(f, zero, exporter_eth1, 0);
    agrees(f, "hostprobe_ecs_container_network_receive_bytes_total",
           {{"container", "prometheus"}, {"interface", "eth1"}}, 129045374);
    // What ecs_exporter does not have: working set, blkio, rates, the task's sums.
    agrees(f, "hostprobe_ecs_container_memory_working_set_bytes", prometheus, 75550720);
    agrees(f, "hostprobe_ecs_container_memory_working_set_bytes", exporter, 45010944);
    agrees(f, "hostprobe_ecs_container_blkio_read_bytes_total", prometheus, 89202688);
    agrees(f, "hostprobe_ecs_container_blkio_write_bytes_total", exporter, 4096);
    agrees(f, "hostprobe_ecs_container_cpu_cores", prometheus, 0.007193303 / 10.000941384);
    agrees(f, "hostprobe_ecs_task_cpu_cores_used", {},
           0.007193303 / 10.000941384 + 0.079862443 / 9.999690712);
    agrees(f, "hostprobe_ecs_task_memory_working_set_bytes", {}, 75550720.0 + 45010944.0);
    agrees(f, "hostprobe_ecs_task_cpu_saturation_ratio", {}, 0);
    agrees(f, "hostprobe_ecs_task_stats_containers_dropped", {}, 0);
    // The stopped container: its state, no usage.
    agrees(f, "hostprobe_ecs_container_known_status",
           {{"container", "nonessential"}, {"status", "STOPPED"}}, 1);
    agrees(f, "hostprobe_ecs_container_exit_code", {{"container", "nonessential"}}, 0);
    agrees(f, "hostprobe_ecs_container_info",
           {{"container", "prometheus"}, {"image", "prom/prometheus:v3.1.0"}, {"type", "NORMAL"}},
           1);
    CHECK_FALSE(
        sample_of(f, "hostprobe_ecs_container_memory_usage_bytes", {{"container", "nonessential"}})
            .has_value());
    CHECK_FALSE(sample_of(f, "hostprobe_ecs_container_pids", prometheus).has_value());  // Fargate
}

TEST_CASE("EC2 capture (cgroup v2): container limits, file cache, pids") {
    auto snapshot =
        snapshot_of("ecs_exporter/ec2_task_metadata.json", "ecs_exporter/ec2_task_stats.json");
    const auto f = metrics::task_stats_families(*snapshot);
    const Labels exporter{{"container", "ecs-exporter"}};
    const Labels prometheus{{"container", "prometheus"}};
    agrees(f, "hostprobe_ecs_container_cpu_seconds_total", exporter, 331125000 * (1 / 1e9));
    agrees(f, "hostprobe_ecs_container_cpu_seconds_total", prometheus, 566060000 * (1 / 1e9));
    agrees(f, "hostprobe_ecs_container_memory_usage_bytes", exporter, 65249280);
    agrees(f, "hostprobe_ecs_container_memory_usage_bytes", prometheus, 60981248);
    agrees(f, "hostprobe_ecs_container_memory_limit_bytes",
           {{"container", "ecs-exporter"}, {"source", "container"}}, 268435456);
    agrees(f, "hostprobe_ecs_container_memory_cache_bytes", exporter, 25296896);  // v2 file
    agrees(f, "hostprobe_ecs_container_memory_cache_bytes", prometheus, 19619840);
    agrees(f, "hostprobe_ecs_container_memory_page_faults_total", exporter, 17631);
    agrees(f, "hostprobe_ecs_container_memory_major_page_faults_total", prometheus, 1133);
    // Bridge networking: each container its own eth0; ecs_exporter keeps only prometheus's.
    agrees(f, "hostprobe_ecs_container_network_receive_bytes_total",
           {{"container", "prometheus"}, {"interface", "eth0"}}, 45368);
    agrees(f, "hostprobe_ecs_container_network_receive_bytes_total",
           {{"container", "ecs-exporter"}, {"interface", "eth0"}}, 101869);
    agrees(f, "hostprobe_ecs_container_pids", exporter, 33);
    agrees(f, "hostprobe_ecs_container_pids", prometheus, 25);
    agrees(f, "hostprobe_ecs_container_memory_working_set_bytes", exporter, 47607808);
    // No task CPU limit on this EC2 task: no saturation (ecs_exporter: no
    // ecs_task_cpu_limit_vcpus).
    CHECK_FALSE(sample_of(f, "hostprobe_ecs_task_cpu_saturation_ratio", {}).has_value());
}

TEST_CASE(
    "the rendered text is promtool-clean, labelled within bounds, and made once per snapshot") {
    auto full = std::make_shared<const ecs::TaskStatsSnapshot>(ecs::example_full_task_stats());
    ecs::FixedTaskStats source(full);
    metrics::TaskStatsCollector collector(source);
    std::string first;
    std::vector<metrics::CollectorOutcome> outcomes;
    collector.render(first, outcomes);
    REQUIRE(outcomes.size() == 1);
    CHECK(outcomes[0].collector == "ecs_task_stats");
    CHECK_FALSE(outcomes[0].success);  // the example's newest read failed
    CHECK(testing::promtool_accepts(first));
    CHECK(first.find(
              "hostprobe_ecs_container_health_status{container=\"app\",status=\"HEALTHY\"} 1") !=
          std::string::npos);
    CHECK(first.find("hostprobe_ecs_container_restarts_total{container=\"app\"} 1") !=
          std::string::npos);
    std::string second;
    collector.render(second, outcomes);
    CHECK(second == first);

    ecs::FixedTaskStats nothing(nullptr);  // outside ECS, or before the first read
    std::string empty;
    std::vector<metrics::CollectorOutcome> none;
    metrics::TaskStatsCollector(nothing).render(empty, none);
    CHECK(empty.empty());
    CHECK(none.empty());
}

TEST_CASE("100 containers in the document: at most 20 container label values") {
    const auto documents = testing::task_of_containers(100, [](int i) {
        return json{{"read", "2026-12-06T10:00:00Z"},
                    {"cpu_stats", {{"cpu_usage", {{"total_usage", i}}}}}};
    });
    auto reading = ecs::parse_task_stats(documents.task, documents.stats);
    REQUIRE(reading.ok());
    ecs::TaskStatsTracker tracker;
    const auto f =
        metrics::task_stats_families(*tracker.take(std::move(reading), WallClock::now()));
    for (const auto& family : f) {
        std::set<std::string> containers;
        for (const auto& metric : family.metric)
            for (const auto& label : metric.label)
                if (label.name == "container") containers.insert(label.value);
        INFO(family.name);
        CHECK(containers.size() <= ecs::kMaxTaskContainers);
    }
    agrees(f, "hostprobe_ecs_task_stats_containers_dropped", {}, 80);
}
