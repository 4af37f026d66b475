// Run creations per client per minute: a sliding one-minute window per peer address, so one
// caller cannot keep the agent measuring (and the task's CPU busy) back to back.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace hostprobe::api {

class RateLimiter {
  public:
    using Clock = std::chrono::steady_clock;
    explicit RateLimiter(size_t per_minute) : per_minute_(per_minute) {}

    // Counts the attempt when it is allowed; 0 per minute means no limit.
    bool allow(const std::string& client, Clock::time_point now = Clock::now());
    // Seconds until `client` may try again (for Retry-After); 0 when it may now.
    long seconds_until_allowed(const std::string& client,
                               Clock::time_point now = Clock::now()) const;

  private:
    void forget_old(Clock::time_point now);  // requires the lock

    const size_t per_minute_;
    mutable std::mutex mutex_;
    std::map<std::string, std::deque<Clock::time_point>> attempts_;
};

}  // namespace hostprobe::api
