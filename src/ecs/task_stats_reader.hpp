// Reads GET /task and /task/stats in the background, at most once per interval (10 s in serve),
// never per scrape: a scrape, /v1/task and the page read the last snapshot. Off outside ECS
// (nothing is started without ECS_CONTAINER_METADATA_URI_V4). A failed read keeps the last good
// values and says why in the snapshot's error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/time_format.hpp"
#include "ecs/task_stats.hpp"
#include "ecs/task_usage.hpp"

namespace hostprobe::ecs {

struct TaskStatsSnapshot {
    TaskStatsReading reading;  // the last good reading
    TaskUsage usage;
    SaturationWindow::Share saturation;  // of the minute before the reading
    std::vector<std::string> memory_warnings;
    WallClock::time_point read_at{};   // when the last good reading was taken (our clock)
    std::optional<std::string> error;  // the newest read failed: why (the values are older)
    uint64_t reads = 0;                // good readings so far
    uint64_t failures = 0;
};

// The pure part: folds each read into the next snapshot (each container's earlier stats for
// rates, the saturation window). Testable without a server or a thread.
class TaskStatsTracker {
  public:
    std::shared_ptr<const TaskStatsSnapshot> take(Result<TaskStatsReading> reading,
                                                  WallClock::time_point now);

  private:
    // Per container (name and DockerId): its newest stats, and the older stats its rate is
    // computed against. Stats read again with the same `read` stamp (the endpoint had nothing
    // newer) keep the rate they had rather than losing it to a zero interval.
    struct History {
        ContainerStats newest;
        std::optional<ContainerStats> base;
    };
    TaskStatsReading rate_bases(const TaskStatsReading& current);

    std::shared_ptr<const TaskStatsSnapshot> last_;
    std::map<std::pair<std::string, std::string>, History> history_;
    SaturationWindow window_;
};

// Where the last snapshot is read from: the reader in serve, a fixed one in tests and examples.
class TaskStatsSource {
  public:
    virtual ~TaskStatsSource() = default;
    // Null until the first read has ended (well or not).
    virtual std::shared_ptr<const TaskStatsSnapshot> snapshot() const = 0;
};

class FixedTaskStats final : public TaskStatsSource {
  public:
    explicit FixedTaskStats(std::shared_ptr<const TaskStatsSnapshot> snapshot)
        : snapshot_(std::move(snapshot)) {}
    std::shared_ptr<const TaskStatsSnapshot> snapshot() const override { return snapshot_; }

  private:
    std::shared_ptr<const TaskStatsSnapshot> snapshot_;
};

// One read of both documents (bounded by get_bounded_json) and their parse.
Result<TaskStatsReading> read_task_stats(const std::string& base_uri);

class TaskStatsReader final : public TaskStatsSource {
  public:
    // Called on the reader's thread after each read (EMF lines); must not block for long.
    using Updated = std::function<void(const TaskStatsSnapshot&)>;
    TaskStatsReader(std::string base_uri, std::chrono::milliseconds interval, Updated updated = {});
    ~TaskStatsReader() override;  // stops and joins; an in-flight request ends within its deadline
    TaskStatsReader(const TaskStatsReader&) = delete;
    TaskStatsReader& operator=(const TaskStatsReader&) = delete;
    void start();
    std::shared_ptr<const TaskStatsSnapshot> snapshot() const override;

  private:
    void run(std::stop_token stop);  // never throws
    void publish(std::shared_ptr<const TaskStatsSnapshot> next);

    std::string base_uri_;
    std::chrono::milliseconds interval_;
    Updated updated_;
    TaskStatsTracker tracker_;  // the thread's own
    mutable std::mutex mutex_;
    std::condition_variable_any wake_;
    std::shared_ptr<const TaskStatsSnapshot> snapshot_;
    std::jthread thread_;
};

}  // namespace hostprobe::ecs
