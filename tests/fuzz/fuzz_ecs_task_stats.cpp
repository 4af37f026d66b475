// ECS task stats: the /task document, a line "----", and the /task/stats document, as the
// reader receives them and parses them (parse_untrusted_json). What parses is folded into a
// snapshot twice (a second reading of the same documents: rates and the saturation window) and
// rendered as GET /v1/task, its text, /metrics and EMF would.
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "core/untrusted_json.hpp"
#include "ecs/task_stats_reader.hpp"
#include "emf/documents.hpp"
#include "fuzz_support.hpp"
#include "metrics/task_stats_collector.hpp"
#include "metrics/text_source.hpp"
#include "report/task_json.hpp"

using namespace hostprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto [task_text, stats_text] = fuzz::split_at_line(fuzz::as_text(data, size), "----");
    const auto task = parse_untrusted_json(task_text);
    const auto stats = parse_untrusted_json(stats_text);
    if (!task || !stats) return 0;
    auto reading = ecs::parse_task_stats(*task, *stats);
    if (!reading) return 0;
    const std::string input(fuzz::as_text(data, size));
    FUZZ_CHECK(reading->containers.size() <= ecs::kMaxTaskContainers, input);
    FUZZ_CHECK(reading->warnings.size() <= ecs::kMaxTaskStatsWarnings, input);
    ecs::TaskStatsTracker tracker;
    auto second = ecs::parse_task_stats(*task, *stats);
    (void)tracker.take(std::move(reading), WallClock::now());
    const auto snapshot = tracker.take(std::move(second), WallClock::now());
    for (const auto& cores : snapshot->usage.container_cpu_cores)
        FUZZ_CHECK(!cores || *cores >= 0, input);  // a counter going back is no rate, never < 0
    if (snapshot->saturation.ratio)
        FUZZ_CHECK(*snapshot->saturation.ratio >= 0 && *snapshot->saturation.ratio <= 1, input);
    (void)json_text(report::task_json(*snapshot, std::nullopt));
    (void)report::task_text(*snapshot, std::nullopt);
    (void)metrics::to_text(metrics::task_stats_families(*snapshot));
    (void)emf::task_documents(*snapshot, task::TaskFacts{}, emf::DocumentSettings{});
    return 0;
}
