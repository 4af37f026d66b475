// A populated TaskFacts (host facts, ECS task metadata and cost): with TaskFacts{}, the examples
// the schema of GET /v1/host is read off (core/json_shape).
#pragma once

#include "host/host_examples.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::task {

TaskFacts example_task_facts(host::ExampleArchitecture architecture);

}  // namespace hostprobe::task
