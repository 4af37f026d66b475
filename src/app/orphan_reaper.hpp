// PID 1 duties inside a container: the kernel hands every orphaned process of the container to
// PID 1, and their zombies stay until PID 1 waits for them. hostprobe runs as PID 1 (the image
// has no init), so it reaps any child that it did not start itself.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <set>
#include <vector>

namespace hostprobe::app {

// Children that hostprobe forks itself and waits for by pid: the reaper leaves them alone.
// Fork while holding claim_lock() and claim before releasing it, so the reaper cannot see the
// child in between.
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

// The direct children of this process (every thread's), from /proc/self/task/*/children.
std::vector<pid_t> current_children();
// The same from every process's parent in /proc/<pid>/stat, for kernels without
// CONFIG_PROC_CHILDREN.
std::vector<pid_t> children_from_stat();

// Waits, without blocking, for every child that has ended and is not owned. Returns how many it
// reaped.
int reap_orphans(const OwnedChildren& owned);

}  // namespace hostprobe::app
