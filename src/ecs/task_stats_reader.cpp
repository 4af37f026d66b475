#include "ecs/task_stats_reader.hpp"

#include "ecs/bounded_get.hpp"

namespace hostprobe::ecs {

namespace {

// A 20-container stats document is about 80 KB; both documents of a task are far below this.
constexpr GetLimits kStatsGetLimits{.max_bytes = size_t{1} << 20,
                                    .deadline = std::chrono::milliseconds(2000),
                                    .max_values = 100'000};

}  // namespace

TaskStatsReading TaskStatsTracker::rate_bases(const TaskStatsReading& current) {
    TaskStatsReading bases;
    std::map<std::pair<std::string, std::string>, History> kept;  // only current containers
    for (const auto& container : current.containers) {
        if (!container.stats) continue;
        const auto key = std::make_pair(container.name, container.docker_id);
        History next{.newest = *container.stats, .base = std::nullopt};
        if (auto found = history_.find(key); found != history_.end()) {
            const ContainerStats& seen = found->second.newest;
            if (seen.read_unix_ns < container.stats->read_unix_ns) {
                next.base = seen;
            } else if (seen.read_unix_ns == container.stats->read_unix_ns) {
                next.base = found->second.base;
            }
        }
        if (next.base) {
            bases.containers.push_back(ContainerReading{
                .name = container.name, .docker_id = container.docker_id, .stats = next.base});
        }
        kept.emplace(key, std::move(next));
    }
    history_ = std::move(kept);
    return bases;
}

std::shared_ptr<const TaskStatsSnapshot> TaskStatsTracker::take(Result<TaskStatsReading> reading,
                                                                WallClock::time_point now) {
    auto next = std::make_shared<TaskStatsSnapshot>(last_ ? *last_ : TaskStatsSnapshot{});
    if (!reading) {
        next->error = reading.error().message;
        ++next->failures;
    } else {
        const TaskStatsReading bases = rate_bases(*reading);
        next->usage = task_usage(*reading, &bases);
        window_.add(next->usage, reading->cpu_limit_cores);
        next->saturation = window_.share(next->usage.interval_end_ns);
        if (!reading->cpu_limit_cores) next->saturation.ratio.reset();
        next->memory_warnings = memory_near_limit_warnings(*reading);
        next->reading = std::move(*reading);
        next->read_at = now;
        next->error.reset();
        ++next->reads;
    }
    last_ = next;
    return next;
}

Result<TaskStatsReading> read_task_stats(const std::string& base_uri) {
    auto base = http::parse_http_url(base_uri);
    if (!base)
        return make_error(ErrorCode::invalid_argument,
                          "ECS_CONTAINER_METADATA_URI_V4: " + base.error().message);
    auto task = get_bounded_json(with_path_suffix(*base, "/task"), kStatsGetLimits);
    if (!task) return task.error();
    auto stats = get_bounded_json(with_path_suffix(*base, "/task/stats"), kStatsGetLimits);
    if (!stats) return stats.error();
    return parse_task_stats(*task, *stats);
}

TaskStatsReader::TaskStatsReader(std::string base_uri, std::chrono::milliseconds interval,
                                 Updated updated)
    : base_uri_(std::move(base_uri)), interval_(interval), updated_(std::move(updated)) {}

TaskStatsReader::~TaskStatsReader() {
    if (thread_.joinable()) {
        thread_.request_stop();
        wake_.notify_all();
        thread_.join();
    }
}

void TaskStatsReader::start() {
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

std::shared_ptr<const TaskStatsSnapshot> TaskStatsReader::snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return snapshot_;
}

void TaskStatsReader::publish(std::shared_ptr<const TaskStatsSnapshot> next) {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot_ = std::move(next);
}

// An exception escaping would end the daemon: whatever the endpoint sends becomes at worst the
// snapshot's error.
void TaskStatsReader::run(std::stop_token stop) {
    while (!stop.stop_requested()) {
        const auto started = std::chrono::steady_clock::now();
        Result<TaskStatsReading> reading = make_error(ErrorCode::internal, "not read");
        try {
            reading = read_task_stats(base_uri_);
        } catch (const std::exception& error) {
            reading = make_error(ErrorCode::internal,
                                 std::string("reading the task stats failed: ") + error.what());
        } catch (...) {
            reading = make_error(ErrorCode::internal, "reading the task stats failed");
        }
        if (stop.stop_requested()) return;
        try {
            auto next = tracker_.take(std::move(reading), WallClock::now());
            publish(next);
            if (updated_) updated_(*next);
        } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory; the old snapshot stays
        }
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait_until(lock, stop, started + interval_, [] { return false; });
    }
}

}  // namespace hostprobe::ecs
