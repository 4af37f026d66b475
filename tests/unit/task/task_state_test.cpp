// The facts above the host: ECS task metadata changes the CPU budget and the cost, always from
// the start-up facts.
#include "task/task_state.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;
using namespace hostprobe::task;

TEST_CASE(
    "the CPU budget follows the task limit when the cgroup shows no quota; the cost follows the "
    "limits") {
    host::HostFacts facts;
    facts.cpu_budget = host::compute_cpu_budget(std::nullopt, 2);
    ecs::TaskMetadata fargate;
    fargate.cpu_limit_cores = 0.25;
    fargate.cpu_limit_source = "task";
    fargate.memory_limit_bytes = 512ull << 20;
    TaskState state(facts);
    CHECK(state.snapshot()->host.cpu_budget.workers == 2);
    CHECK_FALSE(state.snapshot()->cost.has_value());
    state.set_ecs(fargate);
    const auto after = state.snapshot();
    CHECK(after->host.cpu_budget.cores == 0.25);
    CHECK(after->host.cpu_budget.workers == 1);
    CHECK(after->host.cpu_budget.source == "ecs_task");
    REQUIRE(after->cost.has_value());
    CHECK(after->cost->dollars_per_hour == doctest::Approx(0.25 * 0.04048 + 0.5 * 0.004445));
    CHECK(after->cost->source == "ecs_task");

    ecs::TaskMetadata ec2 = fargate;
    ec2.cpu_limit_source = "container";  // CPU shares, not a limit: the budget stays
    state.set_ecs(ec2);
    CHECK(state.snapshot()->host.cpu_budget.workers == 2);
}
