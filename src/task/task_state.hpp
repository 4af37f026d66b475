// The facts as they stand now: fixed at start-up, except for what ECS task metadata adds later
// (it is fetched in the background, never delaying start-up). Readers take a snapshot.
#pragma once

#include <memory>
#include <mutex>

#include "task/task_facts.hpp"

namespace hostprobe::task {

class TaskState {
  public:
    explicit TaskState(host::HostFacts host, Prices prices = {});
    std::shared_ptr<const TaskFacts> snapshot() const;
    // The host part of snapshot(), which is what a probe is given.
    std::shared_ptr<const host::HostFacts> host_snapshot() const;
    void set_ecs(const ecs::TaskMetadata& metadata);

  private:
    const Prices prices_;
    const host::HostFacts base_;  // as collected at start-up, before ECS
    mutable std::mutex mutex_;
    std::shared_ptr<const TaskFacts> current_;
};

}  // namespace hostprobe::task
