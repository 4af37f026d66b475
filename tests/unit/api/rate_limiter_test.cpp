#include "api/rate_limiter.hpp"

#include <doctest/doctest.h>

using hostprobe::api::RateLimiter;
using namespace std::chrono_literals;

TEST_CASE("run creations per client per minute, in a sliding window") {
    RateLimiter limiter(2);
    const auto start = RateLimiter::Clock::time_point{} + 1h;
    CHECK(limiter.allow("10.0.0.1", start));
    CHECK(limiter.allow("10.0.0.1", start + 10s));
    CHECK_FALSE(limiter.allow("10.0.0.1", start + 20s));
    CHECK(limiter.seconds_until_allowed("10.0.0.1", start + 20s) == 40);
    CHECK(limiter.allow("10.0.0.2", start + 20s));  // another client has its own budget
    CHECK(limiter.seconds_until_allowed("10.0.0.2", start + 20s) == 0);
    CHECK(limiter.allow("10.0.0.1", start + 60s));  // the first attempt left the window
    CHECK_FALSE(limiter.allow("10.0.0.1", start + 61s));
}

TEST_CASE("0 per minute means no limit") {
    RateLimiter unlimited(0);
    for (int i = 0; i < 1000; ++i)
        CHECK(unlimited.allow("10.0.0.1"));
    CHECK(unlimited.seconds_until_allowed("10.0.0.1") == 0);
}
