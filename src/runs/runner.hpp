// The one way every probe is started: a bounded queue, worker threads sized from the CPU
// budget, probes that measure the machine kept exclusive, cancellation through stop tokens,
// and a history of recent runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "core/result.hpp"
#include "runs/probe.hpp"
#include "runs/run.hpp"
#include "task/task_state.hpp"

namespace hostprobe::runs {

struct RunnerOptions {
    size_t queue_capacity = 16;
    size_t history_size = 100;
    size_t worker_threads = 2;
    // Niceness of the threads that run probes (and of the threads probes start, which inherit
    // it): the HTTP threads and the application sharing the task come first, so /metrics stays
    // fast during a measurement. On an otherwise idle CPU a nice thread runs at full speed.
    int probe_nice = 10;
};

struct RunFilter {
    std::optional<std::string> probe;
    std::optional<RunState> state;
    size_t limit = 100;
};

// Where the runner takes each run's ProbeContext from: the root, and the host facts as they
// stand when the run starts (ECS task metadata may have changed the CPU budget since start-up).
struct ProbeContextSource {
    const SysRoot& root;
    const task::TaskState& facts;
};

// Runs as listed, with the version of the runs they were read at. The version changes whenever
// any run does (queued, started, progress, finished, dropped from the history) and differs
// between two lives of the agent, so one filter listed at one version always lists the same.
struct RunListing {
    std::vector<Run> runs;
    std::string version;
};

class Runner {
  public:
    // Called (outside the lock) whenever a run finishes, with its final record.
    using FinishedHook = std::function<void(const Run&)>;
    // Called (outside the lock) when a run starts, before anyone can see it running.
    using StartedHook = std::function<void(const Run&)>;

    // No thread starts before start(), so a SignalWatcher can be set up in between.
    Runner(RunnerOptions options, const ProbeRegistry& registry, ProbeContextSource contexts,
           FinishedHook on_finished = {}, StartedHook on_started = {});
    // Before start(): finished runs from an earlier life (oldest first) become the history.
    void restore(std::vector<Run> finished);
    ~Runner();
    void start();
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    // Validates the probe and its params, then queues. not_found for an unknown probe,
    // invalid_argument for bad params, busy when the queue is full.
    Result<Run> submit(const std::string& probe, const nlohmann::json& params,
                       const std::string& trigger);
    std::optional<Run> get(const std::string& id) const;
    // Newest first.
    std::vector<Run> list(const RunFilter& filter) const;
    RunListing listing(const RunFilter& filter) const;
    // The version a listing made now would have, without making it.
    std::string listing_version() const;
    // A queued run is dropped (cancelled at once); a running one is asked to stop and ends
    // cancelled with its partial result. conflict when it has already finished.
    Result<Run> cancel(const std::string& id);
    // The run once finished, or as it is when the timeout passes; empty for an unknown id.
    std::optional<Run> wait(const std::string& id, std::chrono::milliseconds timeout) const;
    // The id of a probe's newest succeeded run, for its result metrics.
    std::optional<std::string> latest_succeeded_id(const std::string& probe) const;

    size_t queued_count() const;
    size_t running_count() const;
    // How long until a queue slot is likely to free up, for Retry-After.
    double seconds_until_slot() const;
    // Cancels everything and joins the workers; later submissions are refused.
    void shutdown();

  private:
    struct Entry {
        Run run;
        std::stop_source stop;
        const Probe* probe = nullptr;
        std::chrono::steady_clock::time_point started;
    };

    void work();
    // The next queued run that may start now, given exclusivity; empty when none.
    std::optional<std::string> next_runnable() const;
    Run claim(const std::string& id);
    void publish_running(const std::string& id, const Run& started);
    void execute(const std::string& id);
    void finish(Entry& entry, RunState state, std::string error, nlohmann::json result);
    void trim_history();
    const Run* latest_succeeded(const std::string& probe) const;  // requires the lock
    void share_with_previous_run(Run& finished) const;
    std::string new_id();
    void note_change();
    std::string version_locked() const;  // requires the lock

    const RunnerOptions options_;
    const ProbeRegistry& registry_;
    const ProbeContextSource contexts_;
    const FinishedHook on_finished_;
    const StartedHook on_started_;

    std::mutex shutdown_mutex_;  // serializes start() and shutdown(), which touch workers_
    mutable std::mutex mutex_;
    std::condition_variable work_available_;
    mutable std::condition_variable changed_;
    std::map<std::string, Entry> runs_;
    std::deque<std::string> order_;  // ids, oldest first
    std::deque<std::string> queue_;  // queued ids, in submission order
    size_t running_ = 0;
    bool exclusive_running_ = false;
    bool stopping_ = false;
    uint64_t sequence_ = 0;
    const std::string life_;  // this agent's life, for listing versions
    uint64_t changes_ = 0;
    std::vector<std::thread> workers_;
};

}  // namespace hostprobe::runs
