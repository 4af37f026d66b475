#include "task/task_state.hpp"

namespace hostprobe::task {

TaskState::TaskState(host::HostFacts host, Prices prices)
    : prices_(prices),
      base_(std::move(host)),
      current_(std::make_shared<const TaskFacts>(task_facts(base_, prices_))) {}

std::shared_ptr<const TaskFacts> TaskState::snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_;
}

std::shared_ptr<const host::HostFacts> TaskState::host_snapshot() const {
    std::shared_ptr<const TaskFacts> facts = snapshot();
    const host::HostFacts* host = &facts->host;
    return std::shared_ptr<const host::HostFacts>(std::move(facts), host);
}

void TaskState::set_ecs(const ecs::TaskMetadata& metadata) {
    TaskFacts updated = with_ecs(base_, metadata, prices_);  // always from the start-up facts
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = std::make_shared<const TaskFacts>(std::move(updated));
}

}  // namespace hostprobe::task
