// One line per event in logfmt (time=... level=... msg="..." key=value), which CloudWatch Logs
// and Loki both parse. Passed to whoever logs; never global.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace hostprobe {

class Logger {
  public:
    using Fields = std::vector<std::pair<std::string, std::string>>;

    explicit Logger(std::FILE* out = stderr) : out_(out) {}

    void info(const std::string& message, const Fields& fields = {}) {
        write("info", message, fields);
    }
    void warn(const std::string& message, const Fields& fields = {}) {
        write("warn", message, fields);
    }
    void error(const std::string& message, const Fields& fields = {}) {
        write("error", message, fields);
    }

    static std::string format_line(const std::string& time, const std::string& level,
                                   const std::string& message, const Fields& fields);

  private:
    void write(const char* level, const std::string& message, const Fields& fields);

    std::FILE* out_;
    std::mutex mutex_;
};

}  // namespace hostprobe
