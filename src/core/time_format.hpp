// RFC 3339 timestamps (UTC, milliseconds) for logs and run records.
#pragma once

#include <chrono>
#include <string>

#include "core/result.hpp"

namespace hostprobe {

using WallClock = std::chrono::system_clock;

// "2026-12-02T15:34:06.123Z"
std::string format_rfc3339(WallClock::time_point time);
inline std::string rfc3339_now() {
    return format_rfc3339(WallClock::now());
}
double unix_seconds(WallClock::time_point time);
// Seconds since the epoch from an RFC 3339 UTC time ("...Z"; any fraction of a second).
Result<double> parse_rfc3339(const std::string& text);

}  // namespace hostprobe
