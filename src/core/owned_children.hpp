// Children that hostprobe forks itself and waits for by pid. As PID 1 of a container the agent
// also reaps orphans (app/orphan_reaper); it must leave these alone, or a probe's waitpid would
// find its child already gone. Fork while holding claim_lock() and claim before releasing it,
// so the reaper cannot see the child in between.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <set>

namespace hostprobe::core {

class OwnedChildren {
  public:
    std::unique_lock<std::mutex> claim_lock() const { return std::unique_lock(mutex_); }
    void claim(pid_t pid, const std::unique_lock<std::mutex>& held);
    void release(pid_t pid);
    bool owns(pid_t pid, const std::unique_lock<std::mutex>& held) const;

  private:
    mutable std::mutex mutex_;
    std::set<pid_t> pids_;
};

}  // namespace hostprobe::core
