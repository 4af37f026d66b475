#include "runs/runner.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "core/strings.hpp"
#include "runs/run_text.hpp"

namespace hostprobe::runs {

namespace {

std::string probe_list(const ProbeRegistry& registry) {
    return join(registry.names(), ", ");
}

// A run an earlier build recorded, with its parameters as this build names them, so GET
// /v1/runs keeps what the document promises (RunParams.<probe>: every parameter, defaults
// filled in, no other): one added since takes its default, one removed since is dropped. A
// value this build would refuse (a limit narrowed since) keeps the run as recorded.
nlohmann::json params_as_this_build_names(const ParamTable& table, const nlohmann::json& recorded) {
    if (!recorded.is_object()) return recorded;
    nlohmann::json known = nlohmann::json::object();
    for (const auto& [name, value] : recorded.items()) {
        if (table.find(name) != nullptr) known[name] = value;
    }
    auto normalized = table.normalize(known);
    return normalized ? *normalized : recorded;
}

}  // namespace

Runner::Runner(RunnerOptions options, const ProbeRegistry& registry, ProbeContextSource contexts,
               FinishedHook on_finished, StartedHook on_started)
    : options_(options),
      registry_(registry),
      contexts_(contexts),
      on_finished_(std::move(on_finished)),
      on_started_(std::move(on_started)),
      life_(std::to_string(WallClock::now().time_since_epoch().count())) {}

void Runner::restore(std::vector<Run> finished) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& run : finished) {
        if (!is_finished(run.state) || runs_.count(run.id)) continue;
        const std::string id = run.id;
        Entry entry;
        entry.probe = registry_.find(run.probe);  // null for a probe this build lacks
        if (entry.probe != nullptr)
            run.params = params_as_this_build_names(entry.probe->params(), run.params);
        entry.run = std::move(run);
        runs_.emplace(id, std::move(entry));
        order_.push_back(id);
    }
    trim_history();
}

void Runner::start() {
    std::lock_guard<std::mutex> one_at_a_time(shutdown_mutex_);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!workers_.empty() || stopping_) return;
    const size_t threads = std::max<size_t>(1, options_.worker_threads);
    for (size_t i = 0; i < threads; ++i)
        workers_.emplace_back([this] { work(); });
}

Runner::~Runner() {
    shutdown();
}

std::string Runner::new_id() {
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(WallClock::now().time_since_epoch())
            .count();
    char id[40];
    std::snprintf(id, sizeof id, "%011llx%04llx", static_cast<unsigned long long>(millis),
                  static_cast<unsigned long long>(++sequence_ & 0xffff));
    return id;
}

Result<Run> Runner::submit(const std::string& probe_name, const nlohmann::json& params,
                           const std::string& trigger) {
    const Probe* probe = registry_.find(probe_name);
    if (probe == nullptr) {
        return make_error(ErrorCode::not_found,
                          "unknown probe '" + probe_name + "'; probes: " + probe_list(registry_));
    }
    auto normalized = probe->params().normalize(params);
    if (!normalized) return normalized.error();
    if (auto checked = probe->check(*normalized); !checked) return checked.error();

    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return make_error(ErrorCode::unavailable, "shutting down");
    if (queue_.size() >= options_.queue_capacity) {
        return make_error(ErrorCode::busy, "the run queue is full (" +
                                               std::to_string(options_.queue_capacity) +
                                               " queued); try again later");
    }
    Entry entry;
    entry.probe = probe;
    entry.run.id = new_id();
    entry.run.probe = probe_name;
    entry.run.params = std::move(normalized).value();
    entry.run.trigger = trigger;
    entry.run.created_at = WallClock::now();
    entry.run.expected_seconds = probe->expected_seconds(entry.run.params);
    const std::string id = entry.run.id;
    Run snapshot = entry.run;
    runs_.emplace(id, std::move(entry));
    order_.push_back(id);
    queue_.push_back(id);
    work_available_.notify_all();
    note_change();
    return snapshot;
}

std::optional<Run> Runner::get(const std::string& id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = runs_.find(id);
    if (it == runs_.end()) return std::nullopt;
    return it->second.run;
}

std::vector<Run> Runner::list(const RunFilter& filter) const {
    return listing(filter).runs;
}

RunListing Runner::listing(const RunFilter& filter) const {
    std::lock_guard<std::mutex> lock(mutex_);
    RunListing listed{{}, version_locked()};
    for (auto it = order_.rbegin(); it != order_.rend() && listed.runs.size() < filter.limit;
         ++it) {
        const Run& run = runs_.at(*it).run;
        if (filter.probe && run.probe != *filter.probe) continue;
        if (filter.state && run.state != *filter.state) continue;
        listed.runs.push_back(run);
    }
    return listed;
}

std::string Runner::listing_version() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return version_locked();
}

std::string Runner::version_locked() const {
    return life_ + "-" + std::to_string(changes_);
}

// Requires the lock. Every change to a run comes through here.
void Runner::note_change() {
    ++changes_;
    changed_.notify_all();
}

Result<Run> Runner::cancel(const std::string& id) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = runs_.find(id);
    if (it == runs_.end()) return make_error(ErrorCode::not_found, "no run with id '" + id + "'");
    Entry& entry = it->second;
    if (is_finished(entry.run.state)) {
        return make_error(ErrorCode::conflict,
                          "run " + id + " has already " + std::string(to_string(entry.run.state)));
    }
    // Claimed by a worker but not yet running (its start being journaled), a run is no longer
    // in the queue: it is stopped like a running one.
    const auto queued = std::find(queue_.begin(), queue_.end(), id);
    if (queued != queue_.end()) {
        queue_.erase(queued);
        finish(entry, RunState::cancelled, "cancelled before it started", nullptr);
        Run snapshot = entry.run;
        trim_history();
        lock.unlock();
        if (on_finished_) on_finished_(snapshot);
        return snapshot;
    }
    entry.stop.request_stop();  // the worker records the cancelled outcome
    return entry.run;
}

std::optional<Run> Runner::wait(const std::string& id, std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(mutex_);
    auto finished_or_gone = [&] {
        auto it = runs_.find(id);
        return it == runs_.end() || is_finished(it->second.run.state);
    };
    changed_.wait_for(lock, timeout, finished_or_gone);
    auto it = runs_.find(id);
    if (it == runs_.end()) return std::nullopt;
    return it->second.run;
}

std::optional<std::string> Runner::latest_succeeded_id(const std::string& probe) const {
    std::lock_guard<std::mutex> lock(mutex_);
    // Every scrape asks this per probe: no run is copied.
    const Run* latest = latest_succeeded(probe);
    return latest ? std::optional<std::string>(latest->id) : std::nullopt;
}

// Requires the lock.
const Run* Runner::latest_succeeded(const std::string& probe) const {
    const Run* latest = nullptr;
    for (const auto& [id, entry] : runs_) {
        const Run& run = entry.run;
        if (run.probe != probe || run.state != RunState::succeeded) continue;
        if (!latest || run.finished_at > latest->finished_at) latest = &run;
    }
    return latest;
}

// A run that found what its probe's last run found keeps no copy of its own: a scheduled cpu
// run finds the same machine every time (its result and text are 3.9 KB deflated).
void Runner::share_with_previous_run(Run& finished) const {
    core::SharedJson previous_result;
    core::CompressedText previous_text;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const Run* previous = latest_succeeded(finished.probe);
        if (previous == nullptr) return;
        previous_result = previous->result;  // shared, not copied
        previous_text = previous->text_report;
    }
    if (!finished.result.is_null() && previous_result == finished.result)
        finished.result = previous_result;
    if (!finished.text_report.empty() && previous_text == finished.text_report)
        finished.text_report = previous_text;
}

size_t Runner::queued_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
}

size_t Runner::running_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
}

double Runner::seconds_until_slot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    double soonest = 0;
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [id, entry] : runs_) {
        if (entry.run.state != RunState::running) continue;
        const double elapsed = std::chrono::duration<double>(now - entry.started).count();
        const double remaining = std::max(0.0, entry.run.expected_seconds - elapsed);
        soonest = soonest == 0 ? remaining : std::min(soonest, remaining);
    }
    return std::max(1.0, std::ceil(soonest));
}

void Runner::shutdown() {
    std::lock_guard<std::mutex> one_at_a_time(
        shutdown_mutex_);  // a signal and the destructor may race
    std::vector<Run> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        for (const std::string& id : queue_) {
            Entry& entry = runs_.at(id);
            finish(entry, RunState::cancelled, "cancelled: hostprobe is shutting down", nullptr);
            dropped.push_back(entry.run);
        }
        queue_.clear();
        for (auto& [id, entry] : runs_) {
            if (entry.run.state == RunState::running) entry.stop.request_stop();
        }
        work_available_.notify_all();
    }
    for (const Run& run : dropped) {
        if (on_finished_) on_finished_(run);
    }
    for (auto& worker : workers_)
        worker.join();
    workers_.clear();
}

std::optional<std::string> Runner::next_runnable() const {
    for (const std::string& id : queue_) {
        if (!runs_.at(id).probe->exclusive() || !exclusive_running_) return id;
    }
    return std::nullopt;
}

void Runner::work() {
    // Linux keeps niceness per thread; 0 = leave it. Only ever raised: an agent started nicer
    // than that (nice -n 15) stays so, even with CAP_SYS_NICE. Failure (a seccomp profile)
    // changes only how polite the agent is, not what it measures.
    const auto thread = static_cast<id_t>(gettid());
    if (options_.probe_nice > getpriority(PRIO_PROCESS, thread))
        (void)setpriority(PRIO_PROCESS, thread, options_.probe_nice);
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        work_available_.wait(lock, [this] { return stopping_ || next_runnable().has_value(); });
        if (stopping_) return;
        const std::string id = *next_runnable();
        const Run started = claim(id);
        // Journaled before anyone can see it running: an agent killed after a client saw
        // `running` finds the run in its journal, interrupted, when it restarts.
        lock.unlock();
        if (on_started_) on_started_(started);
        lock.lock();
        publish_running(id, started);
        lock.unlock();
        execute(id);
        lock.lock();
    }
}

// Requires the lock. Takes the run off the queue and holds its exclusivity, but others still
// see it queued; returns the run as it will be once running.
Run Runner::claim(const std::string& id) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), id));
    Entry& entry = runs_.at(id);
    if (entry.probe->exclusive()) exclusive_running_ = true;
    Run started = entry.run;
    started.state = RunState::running;
    started.started_at = WallClock::now();
    return started;
}

// Requires the lock. A cancel or shutdown that came while the run was claimed stops it now.
void Runner::publish_running(const std::string& id, const Run& started) {
    Entry& entry = runs_.at(id);
    entry.run.state = RunState::running;
    entry.run.started_at = started.started_at;
    entry.started = std::chrono::steady_clock::now();
    ++running_;
    if (stopping_) entry.stop.request_stop();
    note_change();
}

void Runner::execute(const std::string& id) {
    const Probe* probe = nullptr;
    nlohmann::json params;
    std::stop_token stop;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        Entry& entry = runs_.at(id);
        probe = entry.probe;
        params = entry.run.params;
        stop = entry.stop.get_token();
    }
    auto report_progress = [this, id](double fraction) {
        std::lock_guard<std::mutex> lock(mutex_);
        runs_.at(id).run.progress = std::clamp(fraction, 0.0, 1.0);
        note_change();
    };
    const std::shared_ptr<const host::HostFacts> facts = contexts_.facts.host_snapshot();
    const ProbeContext context{contexts_.root, *facts, stop, report_progress, id};

    RunState state = RunState::failed;
    std::string error;
    nlohmann::json result;
    std::string text;
    try {
        auto outcome = probe->run(context, params);
        if (!outcome) {
            error = outcome.error().message;
        } else {
            result = std::move(outcome->result);
            text = std::move(outcome->text_report);
            if (outcome->partial || stop.stop_requested()) {
                state = RunState::cancelled;
                error = "cancelled while running; the result is partial";
                if (result.is_object()) result["partial"] = true;
            } else {
                state = RunState::succeeded;
            }
        }
    } catch (const std::exception& exception) {
        error = std::string("the probe failed: ") + exception.what();
    } catch (...) {
        error = "the probe failed with an unknown exception";
    }

    Run finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        finished = runs_.at(id).run;
    }
    finished.state = state;
    finished.error = std::move(error);
    // Kept only when the result cannot give it back (runs/run_text).
    finished.text_report = text_to_keep(*probe, result, std::move(text));
    finished.result = std::move(result);
    finished.finished_at = WallClock::now();
    if (state == RunState::succeeded) finished.progress = 1;
    share_with_previous_run(finished);
    // Counted and journaled before anyone can see it finished: a client that waited for the run
    // and then scrapes /metrics (or restarts the agent) finds it there.
    if (on_finished_) on_finished_(finished);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        Entry& entry = runs_.at(id);
        --running_;
        if (probe->exclusive()) exclusive_running_ = false;
        entry.run = std::move(finished);
        note_change();
        trim_history();
        work_available_.notify_all();
    }
}

// Requires the lock.
void Runner::finish(Entry& entry, RunState state, std::string error, nlohmann::json result) {
    entry.run.state = state;
    entry.run.error = std::move(error);
    entry.run.result = std::move(result);
    entry.run.finished_at = WallClock::now();
    note_change();
}

// Requires the lock. Keeps every queued and running run, and the newest finished ones.
void Runner::trim_history() {
    size_t finished = 0;
    for (const auto& id : order_)
        finished += is_finished(runs_.at(id).run.state) ? 1 : 0;
    for (auto it = order_.begin(); it != order_.end() && finished > options_.history_size;) {
        if (is_finished(runs_.at(*it).run.state)) {
            runs_.erase(*it);
            it = order_.erase(it);
            ++changes_;
            --finished;
        } else {
            ++it;
        }
    }
}

}  // namespace hostprobe::runs
