#include "api/wait_slots.hpp"

#include <algorithm>

namespace hostprobe::api {

std::optional<WaitSlots::Slot> WaitSlots::try_take() {
    std::lock_guard lock(mutex_);
    if (taken_ >= capacity_) return std::nullopt;
    ++taken_;
    return Slot(*this);
}

void WaitSlots::give_back() {
    std::lock_guard lock(mutex_);
    --taken_;
}

size_t wait_slots_for(size_t http_threads) {
    return std::max<size_t>(1, http_threads / 2);
}

}  // namespace hostprobe::api
