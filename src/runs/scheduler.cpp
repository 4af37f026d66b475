#include "runs/scheduler.hpp"

#include "core/strings.hpp"

namespace hostprobe::runs {

Result<std::chrono::seconds> parse_duration(std::string_view text) {
    std::string_view value = trim(text);
    int64_t multiplier = 1;
    if (!value.empty()) {
        switch (value.back()) {
            case 's': multiplier = 1; break;
            case 'm': multiplier = 60; break;
            case 'h': multiplier = 3600; break;
            case 'd': multiplier = 86400; break;
            default: multiplier = 0; break;
        }
        if (multiplier != 0) value.remove_suffix(1);
    }
    auto number = parse_uint64(value);
    if (!number || *number == 0 || *number > 10'000'000) {
        return make_error(
            ErrorCode::invalid_argument,
            "'" + std::string(text) + "' is not a duration such as 90s, 5m, 1h or 1d");
    }
    return std::chrono::seconds(static_cast<int64_t>(*number) * (multiplier == 0 ? 1 : multiplier));
}

Result<std::vector<ScheduleEntry>> parse_schedule(std::string_view text) {
    std::vector<ScheduleEntry> entries;
    for (std::string_view item : split(text, ',')) {
        item = trim(item);
        if (item.empty()) continue;
        const size_t equals = item.find('=');
        if (equals == std::string_view::npos || equals == 0) {
            return make_error(ErrorCode::invalid_argument,
                              "schedule entry '" + std::string(item) +
                                  "' must be PROBE=INTERVAL, e.g. cipher=1h");
        }
        auto interval = parse_duration(item.substr(equals + 1));
        if (!interval) return interval.error();
        if (*interval < std::chrono::seconds(10)) {
            return make_error(ErrorCode::invalid_argument,
                              "schedule interval for '" +
                                  std::string(trim(item.substr(0, equals))) +
                                  "' is under 10 s; that would leave no CPU to the task");
        }
        entries.push_back(ScheduleEntry{std::string(trim(item.substr(0, equals))), *interval});
    }
    return entries;
}

std::vector<std::string> parse_probe_list(std::string_view text) {
    std::vector<std::string> probes;
    for (std::string_view item : split(text, ',')) {
        if (!trim(item).empty()) probes.emplace_back(trim(item));
    }
    return probes;
}

Scheduler::Scheduler(std::vector<ScheduleEntry> entries, nlohmann::json params, Submit submit,
                     Logger& log, SteadyClock::time_point start)
    : params_(std::move(params)), submit_(std::move(submit)), log_(log) {
    for (auto& entry : entries) {
        const auto first = start + entry.interval;
        slots_.push_back(Slot{std::move(entry), first});
    }
}

Scheduler::~Scheduler() {
    stop();
}

SteadyClock::time_point Scheduler::tick(SteadyClock::time_point now) {
    SteadyClock::time_point next = now + std::chrono::hours(24 * 365);
    for (Slot& slot : slots_) {
        if (slot.next_due <= now) {
            const nlohmann::json params = params_.value(slot.entry.probe, nlohmann::json::object());
            auto submitted = submit_(slot.entry.probe, params, "schedule");
            if (submitted) {
                log_.info("scheduled run queued",
                          {{"probe", slot.entry.probe}, {"run", submitted->id}});
            } else {
                log_.warn("scheduled run skipped",
                          {{"probe", slot.entry.probe}, {"reason", submitted.error().message}});
            }
            // Keep the rhythm: the next run is one interval after this one was due, never in the
            // past.
            while (slot.next_due <= now)
                slot.next_due += slot.entry.interval;
        }
        next = std::min(next, slot.next_due);
    }
    return next;
}

void Scheduler::start() {
    if (slots_.empty()) return;
    thread_ = std::thread([this] { loop(); });
}

void Scheduler::stop() {
    std::lock_guard<std::mutex> one_at_a_time(stop_mutex_);  // a signal and the caller may race
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Scheduler::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        const auto next = tick(SteadyClock::now());
        lock.lock();
        wake_.wait_until(lock, next, [this] { return stopping_; });
    }
}

}  // namespace hostprobe::runs
