#include "core/time_format.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace hostprobe {

std::string format_rfc3339(WallClock::time_point time) {
    const auto since_epoch =
        std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch());
    const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
    const int millis = static_cast<int>(since_epoch.count() % 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
    return buffer;
}

double unix_seconds(WallClock::time_point time) {
    return std::chrono::duration<double>(time.time_since_epoch()).count();
}

Result<double> parse_rfc3339(const std::string& text) {
    std::tm parts{};
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                    &second, &consumed) != 6) {
        return make_error(ErrorCode::parse_error, "not an RFC 3339 time: '" + text + "'");
    }
    double fraction = 0;
    size_t at = static_cast<size_t>(consumed);
    if (at < text.size() && text[at] == '.') {
        double scale = 0.1;
        for (++at; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
            fraction += (text[at] - '0') * scale;
            scale /= 10;
        }
    }
    if (at >= text.size() || (text[at] != 'Z' && text[at] != 'z')) {
        return make_error(ErrorCode::parse_error,
                          "only UTC (Z) times are expected: '" + text + "'");
    }
    parts.tm_year = year - 1900;
    parts.tm_mon = month - 1;
    parts.tm_mday = day;
    parts.tm_hour = hour;
    parts.tm_min = minute;
    parts.tm_sec = second;
    return static_cast<double>(timegm(&parts)) + fraction;
}

}  // namespace hostprobe
