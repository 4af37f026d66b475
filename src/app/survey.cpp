#include "app/survey.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>

#include "app/orphan_reaper.hpp"
#include "app/serve.hpp"
#include "app/signal_watcher.hpp"
#include "app/startup_facts.hpp"
#include "app/survey_lines.hpp"
#include "core/owned_children.hpp"
#include "core/sysroot.hpp"
#include "core/time_format.hpp"
#include "ecs/task_metadata.hpp"
#include "ecs/task_stats_reader.hpp"
#include "emf/documents.hpp"
#include "probes/registry.hpp"
#include "report/host_json.hpp"
#include "report/task_json.hpp"
#include "runs/runner.hpp"
#include "task/task_state.hpp"

namespace hostprobe::app {

namespace {

// How often the wait for a run looks at the stop flag: a SIGTERM cancels within this long.
constexpr std::chrono::milliseconds kSurveyStopPoll{200};

// Lines to stdout, each flushed as it is written so that a log driver gets it at once; after a
// failed write (a closed pipe) the rest are not tried.
class StdoutLines {
  public:
    explicit StdoutLines(std::FILE* out) : out_(out) {}
    void write(const std::string& line) {
        if (failed_) return;
        failed_ = std::fwrite(line.data(), 1, line.size(), out_) != line.size() ||
                  std::fputc('\n', out_) == EOF || std::fflush(out_) != 0;
    }
    bool failed() const { return failed_; }

  private:
    std::FILE* out_;
    bool failed_ = false;
};

// The survey's stdout: its JSON lines, each followed by its EMF lines with --emf.
class SurveyOutput {
  public:
    SurveyOutput(std::FILE* out, const SurveyConfig& config, const task::TaskState& facts)
        : lines_(out),
          facts_(facts),
          emf_(config.emf),
          emf_settings_{config.emf_namespace},
          host_(report::host_json(*facts.snapshot())),
          identity_(task_identity(host_)) {}
    void host() {
        lines_.write(host_line(host_));
        if (emf_)
            lines_.write(emf::host_document(*facts_.snapshot(), emf_settings_,
                                            emf::unix_milliseconds(WallClock::now())));
    }
    void run(const runs::Run& finished) {
        lines_.write(run_line(identity_, finished));
        if (!emf_) return;
        for (const auto& line : emf::run_documents(finished, *facts_.snapshot(), emf_settings_))
            lines_.write(line);
    }
    // One reading of every container's stats (rates from Docker's own previous reading).
    void task_stats(const ecs::TaskStatsSnapshot& snapshot) {
        lines_.write(task_stats_line(identity_, report::task_json(snapshot, std::nullopt)));
        if (!emf_) return;
        for (const auto& line : emf::task_documents(snapshot, *facts_.snapshot(), emf_settings_))
            lines_.write(line);
    }
    void outcome(const SurveyOutcome& outcome) { lines_.write(survey_line(identity_, outcome)); }
    bool failed() const { return lines_.failed(); }

  private:
    StdoutLines lines_;
    const task::TaskState& facts_;
    const bool emf_;
    const emf::DocumentSettings emf_settings_;
    const nlohmann::json host_;
    const nlohmann::json identity_;
};

// The host facts, refined by ECS task metadata when there is an endpoint: the task's CPU limit
// sizes the runs and its size prices them. A survey waits for it (a few seconds at most).
void take_in_task_metadata(task::TaskState& facts, const std::string& uri, Logger& log) {
    if (uri.empty()) return;
    auto metadata = ecs::fetch_task_metadata(uri);
    if (!metadata) {
        log.warn("ECS task metadata unavailable", {{"reason", metadata.error().message}});
        return;
    }
    facts.set_ecs(*metadata);
}

// In an ECS task, one reading of every container's stats before the runs load the task; none
// (with a warning) when the endpoint does not answer.
std::shared_ptr<const ecs::TaskStatsSnapshot> read_task_stats_once(const std::string& uri,
                                                                   Logger& log) {
    if (uri.empty()) return nullptr;
    auto reading = ecs::read_task_stats(uri);
    if (!reading) {
        log.warn("ECS task stats unavailable", {{"reason", reading.error().message}});
        return nullptr;
    }
    ecs::TaskStatsTracker tracker;
    return tracker.take(std::move(reading), WallClock::now());
}

// SIGTERM and the like only raise the flag; the survey's loop cancels the runs.
SignalHandlers survey_signal_handlers(std::atomic<int>& stop_signal,
                                      const OwnedChildren& owned_children, Logger& log) {
    SignalHandlers handlers;
    handlers.shut_down = [&stop_signal, &log](int signal_number) {
        log.info("cancelling the survey", {{"signal", signal_name(signal_number)}});
        stop_signal = signal_number;
    };
    handlers.ignored = [&log](int signal_number) {
        log.info("signal ignored", {{"signal", signal_name(signal_number)}});
    };
    // As a container's PID 1 we inherit its orphans; their zombies are ours to reap.
    if (getpid() == 1) handlers.child_ended = [&owned_children] { reap_orphans(owned_children); };
    return handlers;
}

// Every run submitted, in order; an unknown probe or bad params were checked before.
std::vector<runs::Run> submit_all(runs::Runner& runner, const SurveyConfig& config, Logger& log) {
    std::vector<runs::Run> submitted;
    for (const auto& probe : config.probes) {
        auto run =
            runner.submit(probe, config.params.value(probe, nlohmann::json::object()), "survey");
        if (run) {
            submitted.push_back(*run);
        } else {
            log.error("run refused", {{"probe", probe}, {"reason", run.error().message}});
        }
    }
    return submitted;
}

// Waits for the run to finish; once a stop signal arrives, every run is cancelled.
runs::Run wait_for_run(runs::Runner& runner, runs::Run run, const std::vector<runs::Run>& all,
                       const std::atomic<int>& stop_signal, bool& cancelled_all) {
    while (!runs::is_finished(run.state)) {
        if (stop_signal != 0 && !cancelled_all) {
            cancelled_all = true;
            for (const auto& other : all)
                (void)runner.cancel(other.id);  // a finished one answers conflict: fine
        }
        run = runner.wait(run.id, kSurveyStopPoll).value_or(run);
    }
    return run;
}

void tally(SurveyOutcome& outcome, const runs::Run& run) {
    if (run.state == runs::RunState::succeeded) ++outcome.succeeded;
    if (run.state == runs::RunState::failed) ++outcome.failed;
    if (run.state == runs::RunState::cancelled) ++outcome.cancelled;
}

int exit_code_of(const SurveyOutcome& outcome, size_t asked, bool write_failed,
                 const SurveyExitCodes& codes) {
    if (write_failed) return codes.write_failed;
    if (!outcome.interrupted_by.empty()) return codes.interrupted;
    if (outcome.succeeded != asked) return codes.run_failed;
    return codes.ok;
}

}  // namespace

int run_survey(const SurveyConfig& config, std::FILE* out, Logger& log) {
    OwnedChildren owned_children;
    std::atomic<int> stop_signal{0};
    // Before any thread starts, so that only the watcher receives the signals.
    SignalWatcher signals(SignalContext::daemon,
                          survey_signal_handlers(stop_signal, owned_children, log));

    const SysRoot root(config.sysroot);
    task::TaskState facts(collect_startup_facts(root, log), config.prices);
    take_in_task_metadata(facts, config.ecs_metadata_uri, log);
    const runs::ProbeRegistry registry =
        probes::builtin_probes({.storage = config.storage,
                                .shell = config.system_shell,
                                .owned_children = &owned_children});
    remove_probe_leftovers(config.storage, log);

    SurveyOutput output(out, config, facts);
    output.host();
    if (const auto task_stats = read_task_stats_once(config.ecs_metadata_uri, log))
        output.task_stats(*task_stats);

    const uint32_t workers = facts.host_snapshot()->cpu_budget.workers;
    runs::Runner runner({config.probes.size(), config.probes.size(), runner_threads_for(workers),
                         config.probe_nice},
                        registry, {root, facts});
    runner.start();
    const std::vector<runs::Run> submitted = submit_all(runner, config, log);
    SurveyOutcome outcome{.probes = config.probes};
    outcome.failed = config.probes.size() - submitted.size();
    bool cancelled_all = false;
    for (const auto& run : submitted) {
        const runs::Run finished = wait_for_run(runner, run, submitted, stop_signal, cancelled_all);
        tally(outcome, finished);
        output.run(finished);
    }
    runner.shutdown();

    if (stop_signal != 0) outcome.interrupted_by = signal_name(stop_signal);
    outcome.exit_code =
        exit_code_of(outcome, config.probes.size(), output.failed(), config.exit_codes);
    output.outcome(outcome);
    if (output.failed()) {
        log.error("cannot write the survey's lines to stdout");
        outcome.exit_code = config.exit_codes.write_failed;
    }
    log.info("survey finished", {{"succeeded", std::to_string(outcome.succeeded)},
                                 {"failed", std::to_string(outcome.failed)},
                                 {"cancelled", std::to_string(outcome.cancelled)},
                                 {"exit_code", std::to_string(outcome.exit_code)}});
    return outcome.exit_code;
}

}  // namespace hostprobe::app
