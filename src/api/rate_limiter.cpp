#include "api/rate_limiter.hpp"

#include <cmath>

namespace hostprobe::api {

namespace {
constexpr auto kWindow = std::chrono::minutes(1);
}

bool RateLimiter::allow(const std::string& client, Clock::time_point now) {
    if (per_minute_ == 0) return true;
    std::lock_guard lock(mutex_);
    forget_old(now);
    auto& times = attempts_[client];
    if (times.size() >= per_minute_) return false;
    times.push_back(now);
    return true;
}

long RateLimiter::seconds_until_allowed(const std::string& client, Clock::time_point now) const {
    std::lock_guard lock(mutex_);
    auto found = attempts_.find(client);
    if (per_minute_ == 0 || found == attempts_.end() || found->second.size() < per_minute_)
        return 0;
    const auto wait = found->second.front() + kWindow - now;
    return std::max(1L, static_cast<long>(std::ceil(std::chrono::duration<double>(wait).count())));
}

// Drops attempts older than the window, and clients with none left, so memory stays bounded
// by the clients of the last minute.
void RateLimiter::forget_old(Clock::time_point now) {
    for (auto it = attempts_.begin(); it != attempts_.end();) {
        auto& times = it->second;
        while (!times.empty() && now - times.front() >= kWindow)
            times.pop_front();
        it = times.empty() ? attempts_.erase(it) : std::next(it);
    }
}

}  // namespace hostprobe::api
