#include "core/owned_children.hpp"

namespace hostprobe::core {

void OwnedChildren::claim(pid_t pid, const std::unique_lock<std::mutex>& held) {
    (void)held;  // proof that the caller holds the lock
    pids_.insert(pid);
}

void OwnedChildren::release(pid_t pid) {
    std::lock_guard lock(mutex_);
    pids_.erase(pid);
}

bool OwnedChildren::owns(pid_t pid, const std::unique_lock<std::mutex>& held) const {
    (void)held;
    return pids_.contains(pid);
}

}  // namespace hostprobe::core
