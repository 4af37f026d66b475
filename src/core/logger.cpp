#include "core/logger.hpp"

#include "core/time_format.hpp"

namespace hostprobe {

namespace {

bool needs_quotes(const std::string& value) {
    if (value.empty()) return true;
    for (char c : value) {
        if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
            return true;
        }
    }
    return false;
}

std::string quote(const std::string& value) {
    if (!needs_quotes(value)) return value;
    std::string out = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace

std::string Logger::format_line(const std::string& time, const std::string& level,
                                const std::string& message, const Fields& fields) {
    std::string line = "time=" + time + " level=" + level + " msg=" + quote(message);
    for (const auto& [key, value] : fields) {
        line += " " + key + "=" + quote(value);
    }
    return line + "\n";
}

void Logger::write(const char* level, const std::string& message, const Fields& fields) {
    const std::string line = format_line(rfc3339_now(), level, message, fields);
    std::lock_guard<std::mutex> lock(mutex_);
    std::fputs(line.c_str(), out_);
    std::fflush(out_);
}

}  // namespace hostprobe
