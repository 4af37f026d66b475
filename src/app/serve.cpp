#include "app/serve.hpp"

#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <memory>

#include "api/host_api.hpp"
#include "api/openapi.hpp"
#include "api/page_api.hpp"
#include "api/page_assets.hpp"
#include "api/runs_api.hpp"
#include "api/task_api.hpp"
#include "app/memory_trimmer.hpp"
#include "app/orphan_reaper.hpp"
#include "app/signal_watcher.hpp"
#include "app/startup_facts.hpp"
#include "app/unwritten_pages.hpp"
#include "core/build_info.hpp"
#include "core/strings.hpp"
#include "ecs/metadata_fetcher.hpp"
#include "ecs/task_stats_reader.hpp"
#include "emf/documents.hpp"
#include "emf/line_writer.hpp"
#include "emf/line_writer_metrics.hpp"
#include "host/host_facts.hpp"
#include "http/http_server.hpp"
#include "metrics/exposition.hpp"
#include "metrics/host_collector.hpp"
#include "metrics/task_stats_collector.hpp"
#include "probes/registry.hpp"
#include "probes/storage/test_files.hpp"
#include "probes/system/work_directory.hpp"
#include "runs/latest_result_metrics.hpp"
#include "runs/requested_probes.hpp"
#include "runs/run_journal.hpp"
#include "runs/run_metrics.hpp"
#include "runs/runner.hpp"
#include "task/task_state.hpp"

namespace hostprobe::app {

size_t http_threads_for(uint32_t workers) {
    return std::clamp<size_t>(static_cast<size_t>(workers) * 4, 4, 32);
}

size_t runner_threads_for(uint32_t workers) {
    return static_cast<size_t>(std::max<uint32_t>(1, workers)) + 1;
}

void remove_probe_leftovers(const probes::StoragePolicy& storage, Logger& log) {
    for (const auto& directory : storage.allowed_dirs)
        probes::remove_stale_test_files(directory, log);
    probes::WorkDirectory::remove_stale(probes::WorkDirectory::private_parent(), log);
}

namespace {

// How long requests in flight at SIGTERM may take to finish before their connections are ended.
constexpr std::chrono::seconds kShutdownGrace{1};

// What the host is, in the log too: a fleet's CPU models can then be counted from its logs
// (CloudWatch Logs Insights) without reaching any task.
void log_host_identity(Logger& log, const host::HostFacts& facts) {
    const host::CpuType* cpu = facts.default_type();
    const std::string unknown = "unknown";
    log.info("host", {{"model_name", cpu && cpu->model_name ? *cpu->model_name : unknown},
                      {"microarchitecture", facts.guess.microarchitecture.value_or(unknown)},
                      {"hypervisor", facts.hypervisor.vendor.value_or("none")},
                      {"cpus_visible", std::to_string(facts.cpu_budget.visible_cpus)},
                      {"cpu_quota_cores", facts.cgroup.cpu_quota
                                              ? format_fixed(facts.cgroup.cpu_quota->cores(), 2)
                                              : std::string("none")}});
}

// Threads, from the CPU budget at start-up unless configured.
struct Sizing {
    runs::RunnerOptions runner;
    size_t http_threads = 0;
};

Sizing sizing_for(const ServeConfig& config, const host::HostFacts& startup) {
    const uint32_t workers = startup.cpu_budget.workers;
    return {
        {config.queue_size, config.history_size, runner_threads_for(workers), config.probe_nice},
        config.http_threads ? config.http_threads : http_threads_for(workers)};
}

// The journal of --state-dir (null without one), its finished runs read into `replay`.
Result<std::unique_ptr<runs::RunJournal>> open_journal(const ServeConfig& config,
                                                       runs::JournalReplay& replay, Logger& log) {
    if (config.state_dir.empty()) return std::unique_ptr<runs::RunJournal>();
    auto journal = runs::RunJournal::open(config.state_dir, config.history_size, replay);
    if (!journal)
        return make_error(journal.error().code, "--state-dir: " + journal.error().message);
    for (const auto& warning : replay.warnings)
        log.warn(warning, {{"journal", (*journal)->path()}});
    log.info("runs restored", {{"journal", (*journal)->path()},
                               {"runs", std::to_string(replay.finished.size())},
                               {"interrupted", std::to_string(replay.interrupted)}});
    return journal;
}

// --emf: the EMF lines of the host and of every finished run, on stdout; nothing without it.
class EmfOutput {
  public:
    EmfOutput(const ServeConfig& config, const task::TaskState& facts)
        : facts_(facts),
          settings_{config.emf_namespace},
          // First, before the process opens other files: a closed stdout must be seen closed.
          writer_(config.emf ? emf::LineWriter::for_stdout() : nullptr) {}
    // The lines of runs cancelled at shutdown get a moment to go out.
    ~EmfOutput() {
        if (writer_) writer_->flush_for(std::chrono::milliseconds(500));
    }
    EmfOutput(const EmfOutput&) = delete;
    EmfOutput& operator=(const EmfOutput&) = delete;
    void host() const {
        if (writer_)
            writer_->write_line(emf::host_document(*facts_.snapshot(), settings_,
                                                   emf::unix_milliseconds(WallClock::now())));
    }
    void run_finished(const runs::Run& run) const {
        if (!writer_) return;
        for (auto& line : emf::run_documents(run, *facts_.snapshot(), settings_))
            writer_->write_line(std::move(line));
    }
    // The task's stats: at most one set of lines a minute (each line is a CloudWatch Logs
    // event and up to 21 of them come from one reading). Called on the reader's thread only.
    void task_stats(const ecs::TaskStatsSnapshot& snapshot) const {
        if (!writer_ || snapshot.error || snapshot.reads == 0) return;
        const auto now = std::chrono::steady_clock::now();
        if (last_task_lines_ && now - *last_task_lines_ < kTaskLinesEvery) return;
        last_task_lines_ = now;
        for (auto& line : emf::task_documents(snapshot, *facts_.snapshot(), settings_))
            writer_->write_line(std::move(line));
    }
    void add_collector(metrics::Exposition& exposition) const {
        if (writer_) exposition.add(std::make_shared<emf::LineWriterCollector>(*writer_));
    }

  private:
    static constexpr std::chrono::seconds kTaskLinesEvery{60};
    const task::TaskState& facts_;
    const emf::DocumentSettings settings_;
    const std::unique_ptr<emf::LineWriter> writer_;
    mutable std::optional<std::chrono::steady_clock::time_point> last_task_lines_;
};

// Every run's start and end go to the journal (when there is one); its end to the run metrics
// and the log too.
struct RunRecorders {
    runs::Runner::FinishedHook finished;
    runs::Runner::StartedHook started;
};

RunRecorders run_recorders(runs::RunJournal* journal, runs::RunMetrics& run_metrics,
                           const EmfOutput& emf_output, Logger& log) {
    auto recorded = [&log](const Status& written) {
        if (!written) log.warn("cannot record the run", {{"reason", written.error().message}});
    };
    return {[journal, &run_metrics, &emf_output, &log, recorded](const runs::Run& run) {
                if (journal) recorded(journal->record_finished(run));
                run_metrics.record_finished(run);
                emf_output.run_finished(run);
                log.info("run finished", {{"run", run.id},
                                          {"probe", run.probe},
                                          {"state", runs::to_string(run.state)},
                                          {"trigger", run.trigger},
                                          {"error", run.error}});
            },
            [journal, recorded](const runs::Run& run) {
                if (journal) recorded(journal->record_started(run));
            }};
}

// What GET /metrics renders, in this order.
void add_collectors(metrics::Exposition& exposition, const SysRoot& root,
                    const task::TaskState& facts, const runs::RunMetrics& run_metrics,
                    const runs::Runner& runner, const runs::ProbeRegistry& registry) {
    exposition.add(std::make_shared<metrics::BuildInfoCollector>());
    exposition.add(std::make_shared<metrics::HostCollector>(root, facts));
    exposition.add(run_metrics.registry());
    exposition.add(std::make_shared<runs::RunnerCollector>(runner));
    exposition.add(std::make_shared<const runs::LatestResultMetrics>(runner, registry));
}

// The endpoints and what their handlers hold; it must outlive the server.
class Api {
  public:
    Api(const ServeConfig& config, size_t http_threads, const api::HostApiContext& host_context,
        runs::Runner& runner, const runs::ProbeRegistry& registry)
        : host_(host_context),
          run_creations_(config.max_runs_per_minute),
          waiters_(api::wait_slots_for(http_threads)),
          runs_{.runner = runner,
                .registry = registry,
                .run_creations = run_creations_,
                .waiters = waiters_,
                .max_body_bytes = config.max_body_bytes,
                .listings = &listings_},
          router_(std::make_shared<http::Router>()) {
        api::add_host_routes(*router_, host_);
        api::add_task_routes(*router_, host_);
        api::add_runs_routes(*router_, runs_);
        api::add_page_routes(*router_, api::page_assets());
        api::add_openapi_route(*router_, registry);
        api::add_index_route(*router_, api::page_assets());
    }
    Api(const Api&) = delete;
    Api& operator=(const Api&) = delete;
    std::shared_ptr<const http::Router> router() const { return router_; }
    // For the memory trimmer's passes: true when a listing nobody asked for again was dropped.
    bool drop_unused_caches() const { return listings_.drop_unused(); }

  private:
    const api::HostApiContext host_;
    api::RateLimiter run_creations_;
    api::WaitSlots waiters_;
    mutable api::ListingCache listings_;
    const api::RunsApiContext runs_;
    std::shared_ptr<http::Router> router_;
};

http::ServerOptions server_options(const ServeConfig& config, size_t http_threads,
                                   TrimNotices& trim_notices) {
    http::ServerOptions options;
    options.address = config.listen;
    options.access = config.access;
    options.max_body_bytes = config.max_body_bytes;
    options.max_header_bytes = config.max_header_bytes;
    options.request_timeout_seconds = config.request_timeout_seconds;
    options.max_connections = config.max_connections;
    options.tls_cert_file = config.tls_cert_file;
    options.tls_key_file = config.tls_key_file;
    options.threads = http_threads;
    // A served connection may have touched a burst's worth of pages.
    options.after_connection = [&trim_notices] { trim_notices.worked(); };
    return options;
}

// When ECS task metadata arrives, the facts take it in (CPU budget, task, cost).
// The EMF host line waits for the metadata (or its failure), so that it names the task.
ecs::MetadataFetcher::Done take_in_ecs_metadata(task::TaskState& facts, const EmfOutput& emf_output,
                                                Logger& log) {
    return [&facts, &emf_output, &log](const Result<ecs::TaskMetadata>& metadata) {
        if (!metadata) {
            log.warn("ECS task metadata unavailable", {{"reason", metadata.error().message}});
            emf_output.host();
            return;
        }
        facts.set_ecs(*metadata);
        emf_output.host();
        log.info("ECS task metadata",
                 {{"task", metadata->task_arn},
                  {"launch_type", metadata->launch_type},
                  {"cpu_budget_source", facts.host_snapshot()->cpu_budget.source}});
    };
}

// SIGTERM and the like stop accepting first, then cancel runs so that requests waiting on them
// (?wait=) return promptly. As a container's PID 1 we inherit its orphans; their zombies are
// ours to reap.
SignalHandlers daemon_signal_handlers(http::HttpServer& server, runs::Scheduler& scheduler,
                                      runs::Runner& runner, const OwnedChildren& owned_children,
                                      Logger& log) {
    SignalHandlers handlers;
    handlers.shut_down = [&server, &scheduler, &runner, &log](int signal_number) {
        log.info("shutting down", {{"signal", signal_name(signal_number)}});
        // ECS allows 30 s before SIGKILL, our promise is 2 s: requests get 1 s to finish.
        const auto requests_deadline = std::chrono::steady_clock::now() + kShutdownGrace;
        server.stop();
        scheduler.stop();
        runner.shutdown();
        if (const size_t ended = server.drain(requests_deadline); ended > 0)
            log.info("ended open connections", {{"count", std::to_string(ended)}});
    };
    handlers.ignored = [&log](int signal_number) {
        log.info("signal ignored", {{"signal", signal_name(signal_number)}});
    };
    if (getpid() == 1) {
        handlers.child_ended = [&owned_children, &log] {
            if (const int reaped = reap_orphans(owned_children); reaped > 0)
                log.info("reaped orphaned processes", {{"count", std::to_string(reaped)}});
        };
    }
    return handlers;
}

// Runs, --run-on-start, --schedule and the ECS metadata fetch begin once the port is bound.
void start_work(runs::Runner& runner, runs::Scheduler& scheduler,
                ecs::MetadataFetcher& ecs_metadata, ecs::TaskStatsReader* task_stats,
                const ServeConfig& config, const EmfOutput& emf_output, Logger& log) {
    // Outside ECS the host line goes now; in ECS when the task metadata answered.
    if (config.ecs_metadata_uri.empty()) emf_output.host();
    runner.start();
    for (const auto& probe : config.run_on_start) {
        auto submitted = runner.submit(
            probe, config.scheduled_params.value(probe, nlohmann::json::object()), "start");
        if (!submitted)
            log.warn("run on start refused",
                     {{"probe", probe}, {"reason", submitted.error().message}});
    }
    scheduler.start();
    if (!config.ecs_metadata_uri.empty()) ecs_metadata.start();
    if (task_stats != nullptr) task_stats->start();
}

// In an ECS task: every container's stats, read every --ecs-stats-interval; outside, nothing.
std::unique_ptr<ecs::TaskStatsReader> task_stats_reader(const ServeConfig& config,
                                                        const EmfOutput& emf_output) {
    if (config.ecs_metadata_uri.empty()) return nullptr;
    const auto interval =
        std::chrono::milliseconds(static_cast<int64_t>(config.ecs_stats_interval_seconds * 1000));
    return std::make_unique<ecs::TaskStatsReader>(
        config.ecs_metadata_uri, interval, [&emf_output](const ecs::TaskStatsSnapshot& snapshot) {
            emf_output.task_stats(snapshot);
            // The documents' trees were freed just now: their pages go back at once, not at the
            // trimmer's next turn, so the reads never show in the task's memory.
            malloc_trim(0);
        });
}

// Until SIGTERM (or a failure) stops the server; then no run is left running.
int serve_until_stopped(http::HttpServer& server, runs::Scheduler& scheduler, runs::Runner& runner,
                        Logger& log) {
    auto served = server.serve();
    scheduler.stop();
    runner.shutdown();
    if (!served) {
        log.error(served.error().message);
        return 1;
    }
    log.info("stopped");
    return 0;
}

void log_listening(Logger& log, const ServeConfig& config, const SysRoot& root, int port,
                   const host::HostFacts& facts, const Sizing& sizing) {
    http::ListenAddress actual = config.listen;
    actual.port = port;
    log.info("listening", {{"address", actual.to_string()},
                           {"tls", config.tls_cert_file.empty() ? "off" : "on"},
                           {"version", kVersion},
                           {"sysroot", root.prefix()},
                           {"cpu_budget_cores", std::to_string(facts.cpu_budget.cores)},
                           {"http_threads", std::to_string(sizing.http_threads)},
                           {"runner_threads", std::to_string(sizing.runner.worker_threads)}});
    log_host_identity(log, facts);
}

// Blocks this large are mapped for themselves and unmapped when freed.
constexpr int kLargeBlockBytes = 128 * 1024;

}  // namespace

Status check_automation(const ServeConfig& config, const runs::ProbeRegistry& registry) {
    std::vector<std::string> named = config.run_on_start;
    for (const auto& entry : config.schedule)
        named.push_back(entry.probe);
    return runs::check_requested_probes(named, config.scheduled_params, registry);
}

int run_serve(const ServeConfig& config, Logger& log) {
    // glibc gives each busy thread its own malloc arena and keeps what it freed there; with a
    // dozen HTTP and runner threads that is megabytes of idle memory in someone else's task.
    mallopt(M_ARENA_MAX, 2);
    // glibc's defaults, fixed: left to itself, glibc raises both after the first large block is
    // freed (up to 32 and 64 MiB), so later large blocks (a listing, /openapi.json, a run's
    // buffers) come from the arenas and stay there, and malloc_trim cannot shrink an arena's
    // top: a disk run after one GET /openapi.json left 0.7-1 MiB resident for good.
    mallopt(M_MMAP_THRESHOLD, kLargeBlockBytes);
    mallopt(M_TRIM_THRESHOLD, kLargeBlockBytes);
    const auto started = std::chrono::steady_clock::now();
    const SysRoot root(config.sysroot);
    task::TaskState facts(collect_startup_facts(root, log), config.prices);
    const EmfOutput emf_output(config, facts);
    const auto startup = facts.host_snapshot();  // as at start-up, for sizing
    // The children probes fork: as PID 1 the orphan reaper must leave them to the probe.
    OwnedChildren owned_children;
    const runs::ProbeRegistry registry =
        probes::builtin_probes({.storage = config.storage,
                                .shell = config.system_shell,
                                .owned_children = &owned_children});
    remove_probe_leftovers(config.storage, log);

    runs::JournalReplay replay;
    auto journal = open_journal(config, replay, log);
    if (!journal) {
        log.error(journal.error().message);
        return 1;
    }
    const Sizing sizing = sizing_for(config, *startup);
    runs::RunMetrics run_metrics;
    auto [on_finished, on_started] = run_recorders(journal->get(), run_metrics, emf_output, log);
    // A finished run frees its buffers without new page faults: it tells the trimmer.
    TrimNotices trim_notices;
    runs::Runner runner(
        sizing.runner, registry, {root, facts},
        // An init-capture: clang 14 (the fuzz build) cannot capture a structured binding.
        [&trim_notices, record_finished = on_finished](const runs::Run& run) {
            record_finished(run);
            trim_notices.freed();
        },
        on_started);
    runner.restore(std::move(replay.finished));

    const auto task_stats = task_stats_reader(config, emf_output);
    metrics::Exposition exposition;
    add_collectors(exposition, root, facts, run_metrics, runner, registry);
    if (task_stats) exposition.add(std::make_shared<metrics::TaskStatsCollector>(*task_stats));
    emf_output.add_collector(exposition);
    host::LiveHistory live_history;
    const Api api(config, sizing.http_threads,
                  {root, facts, exposition, started, live_history, task_stats.get()}, runner,
                  registry);
    const http::ServerOptions serving = server_options(config, sizing.http_threads, trim_notices);
    http::HttpServer server(serving, api.router());
    runs::Scheduler scheduler(
        config.schedule, config.scheduled_params,
        [&runner](const std::string& probe, const nlohmann::json& params,
                  const std::string& trigger) { return runner.submit(probe, params, trigger); },
        log, started);
    ecs::MetadataFetcher ecs_metadata(config.ecs_metadata_uri,
                                      take_in_ecs_metadata(facts, emf_output, log));

    // Before any thread starts, so that only the watcher receives the signals.
    SignalWatcher signals(SignalContext::daemon,
                          daemon_signal_handlers(server, scheduler, runner, owned_children, log));
    // Keeps RSS near its idle size within seconds of a burst, the second pass after the threads
    // the burst started have ended (their chunk caches go back then); idle, once a minute.
    // Code and read-only data are dropped after start-up and after each run, not after bursts;
    // the linker's tables after bursts too (app/unwritten_pages.hpp says why).
    const MemoryTrimmer trimmer(
        TrimTimes{std::chrono::seconds(2),
                  serving.thread_idle_retirement + std::chrono::seconds(2)},
        trim_notices,
        // Only finished runs free without faults: their count is the code's epoch.
        CodeRelease{[&trim_notices] { return trim_notices.freeings(); },
                    [] { release_unwritten_pages(); }, [] { release_linker_tables(); }},
        [&api] { return api.drop_unused_caches(); });

    if (auto bound = server.bind(); !bound) {
        log.error(bound.error().message);
        return 1;
    }
    start_work(runner, scheduler, ecs_metadata, task_stats.get(), config, emf_output, log);
    log_listening(log, config, root, server.port(), *startup, sizing);
    return serve_until_stopped(server, scheduler, runner, log);
}

}  // namespace hostprobe::app
