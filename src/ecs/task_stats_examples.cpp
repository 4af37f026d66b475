#include "ecs/task_stats_examples.hpp"

namespace hostprobe::ecs {

namespace {

constexpr int64_t kReadNs = 1'765'015'200'000'000'000;  // 2025-12-06T10:00:00Z
constexpr int64_t kSecondNs = 1'000'000'000;

ContainerReading example_app() {
    ContainerReading app{.name = "app",
                         .docker_id = "0123abcd-1",
                         .image = "public.ecr.aws/example/app:1.4",
                         .type = "NORMAL",
                         .known_status = "RUNNING",
                         .health_status = "HEALTHY",
                         .restart_count = 1,
                         .memory_limit_bytes = uint64_t{512} << 20,
                         .memory_limit_source = "task"};
    ContainerStats stats{.read_unix_ns = kReadNs,
                         .preread_unix_ns = kReadNs - 10 * kSecondNs,
                         .cpu_ns = 93 * kSecondNs,
                         .precpu_ns = 91 * kSecondNs,
                         .memory_usage_bytes = uint64_t{490} << 20,
                         .memory_max_usage_bytes = uint64_t{500} << 20,
                         .memory_inactive_file_bytes = uint64_t{20} << 20,
                         .memory_cache_bytes = uint64_t{40} << 20,
                         .page_faults = 18975,
                         .major_page_faults = 693,
                         .blkio_read_bytes = 89202688,
                         .blkio_write_bytes = 4096,
                         .pids = 12,
                         .throttled_periods = 0};
    stats.interfaces.push_back(InterfaceCounters{.name = "eth1",
                                                 .receive_bytes = 129045374,
                                                 .receive_packets = 88933,
                                                 .receive_errors = 1,
                                                 .receive_dropped = 2,
                                                 .transmit_bytes = 347839,
                                                 .transmit_packets = 3501,
                                                 .transmit_errors = 3,
                                                 .transmit_dropped = 4});
    app.stats = stats;
    return app;
}

}  // namespace

TaskStatsSnapshot example_full_task_stats() {
    TaskStatsSnapshot snapshot;
    auto& reading = snapshot.reading;
    reading.cpu_limit_cores = 0.25;
    reading.memory_limit_bytes = uint64_t{512} << 20;
    reading.containers.push_back(example_app());
    reading.containers.push_back(ContainerReading{.name = "init",
                                                  .docker_id = "0123abcd-2",
                                                  .image = "alpine",
                                                  .type = "NORMAL",
                                                  .known_status = "STOPPED",
                                                  .exit_code = 1,
                                                  .memory_limit_bytes = uint64_t{512} << 20,
                                                  .memory_limit_source = "task"});
    reading.containers_dropped = 1;
    reading.warnings = {"21 containers beyond the first 20 were left out"};
    snapshot.usage.container_cpu_cores = {0.2, std::nullopt};
    snapshot.usage.cpu_cores = 0.2;
    snapshot.usage.interval_start_ns = kReadNs - 10 * kSecondNs;
    snapshot.usage.interval_end_ns = kReadNs;
    snapshot.saturation = {.saturated_seconds = 30, .covered_seconds = 60, .ratio = 0.5};
    snapshot.memory_warnings = memory_near_limit_warnings(reading);
    snapshot.read_at = WallClock::time_point(std::chrono::nanoseconds(kReadNs));
    snapshot.error = "/v4/abc/task/stats: HTTP 500";
    snapshot.reads = 42;
    snapshot.failures = 1;
    return snapshot;
}

TaskStatsSnapshot example_sparse_task_stats() {
    TaskStatsSnapshot snapshot;
    ContainerReading only{.name = "web", .docker_id = "4567ef"};
    only.stats = ContainerStats{.read_unix_ns = kReadNs, .cpu_ns = kSecondNs};
    snapshot.reading.containers.push_back(only);
    snapshot.usage.container_cpu_cores = {std::nullopt};
    snapshot.read_at = WallClock::time_point(std::chrono::nanoseconds(kReadNs));
    snapshot.reads = 1;
    return snapshot;
}

}  // namespace hostprobe::ecs
