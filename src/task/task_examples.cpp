#include "task/task_examples.hpp"

namespace hostprobe::task {

TaskFacts example_task_facts(host::ExampleArchitecture architecture) {
    ecs::TaskMetadata ecs{.cluster = "default",
                          .task_arn = "arn:aws:ecs:us-east-1:123456789012:task/default/0123",
                          .family = "hostprobe",
                          .revision = "3",
                          .availability_zone = "us-east-1a",
                          .launch_type = "FARGATE",
                          .container_name = "hostprobe",
                          .cpu_limit_cores = 0.5,
                          .cpu_limit_source = "task",
                          .memory_limit_bytes = uint64_t{1} << 30,
                          .image_pull_seconds = 2.5,
                          .container_start_seconds = 0.5};
    return TaskFacts{host::example_host_facts(architecture), std::move(ecs),
                     TaskCost{0.0247, 0.5, 1, "ecs_task"}};
}

TaskFacts example_sparse_task_facts() {
    ecs::TaskMetadata ecs{.cluster = "default",
                          .task_arn = "arn:aws:ecs:us-east-1:123456789012:task/default/0123",
                          .family = "hostprobe",
                          .revision = "3",
                          .availability_zone = "us-east-1a",
                          .launch_type = "EC2"};
    return TaskFacts{host::example_sparse_host_facts(), std::move(ecs),
                     TaskCost{0.0247, 0.5, 1, "cgroup"}};
}

}  // namespace hostprobe::task
