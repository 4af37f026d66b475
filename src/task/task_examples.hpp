// A populated TaskFacts (host facts, ECS task metadata and cost): with TaskFacts{}, the examples
// the schema of GET /v1/host is read off (core/json_shape).
#pragma once

#include "host/host_examples.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::task {

// Populated facts with every member set (full) or with every optional one unset (sparse: ARM's).
TaskFacts example_task_facts(host::ExampleArchitecture architecture);
TaskFacts example_sparse_task_facts();

}  // namespace hostprobe::task
