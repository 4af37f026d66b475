#include "host/live_history.hpp"

namespace hostprobe::host {

LiveSample LiveHistory::record(LiveReading reading) {
    const std::lock_guard lock(mutex_);
    LiveSample sample;
    const auto at = reading.at;
    // Oldest first: the first reading old enough and within the window is the widest window;
    // otherwise the newest old enough.
    const LiveReading* newest_old_enough = nullptr;
    for (const auto& kept : readings_) {
        if (at - kept.at < kMinSpacing) break;
        if (at - kept.at <= kWindow) {
            sample.baseline = kept;
            break;
        }
        newest_old_enough = &kept;
    }
    if (!sample.baseline && newest_old_enough) sample.baseline = *newest_old_enough;
    if (readings_.empty() || at - readings_.back().at >= kMinSpacing) {
        readings_.push_back(reading);
        if (readings_.size() > kCapacity) readings_.pop_front();
    }
    sample.now = std::move(reading);
    return sample;
}

size_t LiveHistory::size() const {
    const std::lock_guard lock(mutex_);
    return readings_.size();
}

}  // namespace hostprobe::host
