// The host facts as they stand now: fixed at start-up, except for what ECS task metadata adds
// later (it is fetched in the background, never delaying start-up). Readers take a snapshot.
#pragma once

#include <memory>
#include <mutex>

#include "host/host_facts.hpp"

namespace hostprobe::host {

class HostState {
  public:
    explicit HostState(HostFacts facts, Prices prices = {});
    std::shared_ptr<const HostFacts> snapshot() const;
    void set_ecs(ecs::TaskMetadata metadata);

  private:
    Prices prices_;
    const HostFacts base_;  // as collected at start-up, before ECS
    mutable std::mutex mutex_;
    std::shared_ptr<const HostFacts> current_;
};

// ECS limits fill in what the cgroup does not say: with no visible quota but a task CPU limit
// (on Fargate the quota may sit above our cgroup namespace) the budget follows the task.
HostFacts with_ecs(HostFacts facts, const ecs::TaskMetadata& metadata);
std::optional<TaskCost> task_cost(const HostFacts& facts, const Prices& prices);

}  // namespace hostprobe::host
