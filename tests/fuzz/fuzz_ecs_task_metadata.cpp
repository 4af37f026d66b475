// ECS task metadata v4: the task document, optionally followed by a line "----" and the
// container document, as MetadataFetcher receives them. What parses is applied to a real
// machine's facts as HostState::set_ecs does (CPU budget from the task limit, task cost) and
// rendered as GET /v1/host would.
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "ecs/task_metadata.hpp"
#include "fuzz_support.hpp"
#include "host/host_facts.hpp"
#include "host/host_state.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"

using namespace hostprobe;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A 0.25 vCPU Fargate task's machine, collected once.
    static const host::HostFacts machine =
        host::collect_host_facts(SysRoot(fuzz::fixtures_dir() + "/sysroots/fargate-e5-2686v4"));

    const auto [task_text, container_text] = fuzz::split_at_line(fuzz::as_text(data, size), "----");
    const json task = json::parse(task_text, nullptr, /*allow_exceptions=*/false);
    if (task.is_discarded()) return 0;
    json container = json::parse(container_text, nullptr, /*allow_exceptions=*/false);
    if (container.is_discarded()) container = nullptr;  // the fetcher passes null when it failed

    auto metadata = ecs::parse_task_metadata(task, container);
    if (!metadata) return 0;
    FUZZ_CHECK(!metadata->task_arn.empty(), task.dump());
    if (metadata->cpu_limit_cores) FUZZ_CHECK(*metadata->cpu_limit_cores > 0, task.dump());
    (void)json_text(ecs::to_json(*metadata));

    const host::HostFacts facts = host::with_ecs(machine, *metadata);
    FUZZ_CHECK(facts.cpu_budget.workers >= 1, std::to_string(facts.cpu_budget.workers));
    if (auto cost = host::task_cost(facts, host::Prices{})) (void)cost->dollars_per_hour;
    (void)json_text(report::host_json(facts));
    (void)report::host_text(facts);
    return 0;
}
