// ECS task metadata v4: the task document, optionally followed by a line "----" and the
// container document, as MetadataFetcher receives them and parses them (parse_untrusted_json). What
// parses is applied to a real machine's facts as TaskState::set_ecs does (CPU budget from the task
// limit, task cost) and rendered as GET /v1/host would.
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "core/untrusted_json.hpp"
#include "ecs/task_metadata.hpp"
#include "fuzz_support.hpp"
#include "host/host_facts.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"
#include "task/task_facts.hpp"

using namespace hostprobe;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A 0.25 vCPU Fargate task's machine, collected once.
    static const host::HostFacts machine =
        host::collect_host_facts(SysRoot(fuzz::fixtures_dir() + "/sysroots/fargate-e5-2686v4"));

    const auto [task_text, container_text] = fuzz::split_at_line(fuzz::as_text(data, size), "----");
    // Parsed as the fetcher parses them.
    const auto task = parse_untrusted_json(task_text);
    if (!task) return 0;
    auto parsed_container = parse_untrusted_json(container_text);
    // The fetcher passes null when the container document failed.
    const json container = parsed_container ? std::move(parsed_container).value() : json(nullptr);

    auto metadata = ecs::parse_task_metadata(*task, container);
    if (!metadata) return 0;
    const std::string input(task_text);
    FUZZ_CHECK(!metadata->task_arn.empty(), input);
    // Within what ECS can set, so that with_ecs's quota and the byte count convert exactly.
    if (metadata->cpu_limit_cores) {
        FUZZ_CHECK(*metadata->cpu_limit_cores >= ecs::kMinCpuLimitCores &&
                       *metadata->cpu_limit_cores <= ecs::kMaxCpuLimitCores,
                   input);
    }
    (void)json_text(ecs::to_json(*metadata));

    const task::TaskFacts facts = task::with_ecs(machine, *metadata, task::Prices{});
    FUZZ_CHECK(facts.host.cpu_budget.workers >= 1, std::to_string(facts.host.cpu_budget.workers));
    if (facts.cost) (void)facts.cost->dollars_per_hour;
    (void)json_text(report::host_json(facts));
    (void)report::host_text(facts);
    return 0;
}
