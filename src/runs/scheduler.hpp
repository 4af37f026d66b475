// Runs without anyone calling: --run-on-start and --schedule "cipher=1h", so a sidecar keeps
// its metrics fresh. The timing logic (tick) is separate from the thread so it can be tested
// with made-up times.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/logger.hpp"
#include "core/result.hpp"
#include "runs/run.hpp"

namespace hostprobe::runs {

using SteadyClock = std::chrono::steady_clock;

struct ScheduleEntry {
    std::string probe;
    std::chrono::seconds interval{0};
};

// "90s", "5m", "1h", "2d", or a plain number of seconds.
Result<std::chrono::seconds> parse_duration(std::string_view text);
// "cipher=1h,cpu=6h"
Result<std::vector<ScheduleEntry>> parse_schedule(std::string_view text);
// "cpu,cipher"
std::vector<std::string> parse_probe_list(std::string_view text);

class Scheduler {
  public:
    using Submit = std::function<Result<Run>(const std::string& probe, const nlohmann::json& params,
                                             const std::string& trigger)>;

    // `params` maps probe names to the parameters their scheduled runs use.
    Scheduler(std::vector<ScheduleEntry> entries, nlohmann::json params, Submit submit, Logger& log,
              SteadyClock::time_point start);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    // Submits every entry that is due at `now`; returns when the next one is due.
    SteadyClock::time_point tick(SteadyClock::time_point now);
    // Starts a thread that ticks until stop().
    void start();
    void stop();

  private:
    void loop();

    struct Slot {
        ScheduleEntry entry;
        SteadyClock::time_point next_due;
    };
    std::vector<Slot> slots_;
    nlohmann::json params_;
    Submit submit_;
    Logger& log_;

    std::mutex stop_mutex_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace hostprobe::runs
