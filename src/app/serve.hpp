// `hostprobe serve`: collect the host facts, run probes on request and on schedule, serve the
// API until SIGTERM/SIGINT.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/logger.hpp"
#include "host/host_facts.hpp"
#include "http/access_policy.hpp"
#include "http/listen_address.hpp"
#include "probes/storage/storage_policy.hpp"
#include "runs/probe.hpp"
#include "runs/scheduler.hpp"
#include "task/task_cost.hpp"

namespace hostprobe::app {

struct ServeConfig {
    http::ListenAddress listen;
    std::string sysroot = "/";
    size_t http_threads = 0;  // 0: sized from the CPU budget
    size_t queue_size = 16;
    size_t history_size = 100;
    int probe_nice = 10;                   // niceness of the probe threads (0..19)
    std::string system_shell = "/bin/sh";  // for the system probe's shell tests; empty: skip them
    std::vector<std::string> run_on_start;
    std::vector<runs::ScheduleEntry> schedule;
    nlohmann::json scheduled_params = nlohmann::json::object();  // probe name -> params
    probes::StoragePolicy storage;           // where the disk and files probes may write
    std::string ecs_metadata_uri;            // ECS_CONTAINER_METADATA_URI_V4; empty outside ECS
    double ecs_stats_interval_seconds = 10;  // how often /task/stats is read (in ECS)
    task::Prices prices;
    http::AccessPolicy access;  // token, trusted peers, whether reads need them too
    std::string state_dir;      // where finished runs are kept across restarts; empty: nowhere
    // Limits on what one caller can make the agent do (defaults as the README says).
    size_t max_body_bytes = 64 * 1024;
    size_t max_header_bytes = 16 * 1024;
    int request_timeout_seconds = 5;
    size_t max_connections = 64;
    size_t max_runs_per_minute = 30;
    std::string tls_cert_file;  // both set: serve HTTPS
    std::string tls_key_file;
    // CloudWatch Embedded Metric Format lines on stdout (src/emf): the host once, every run as
    // it finishes.
    bool emf = false;
    std::string emf_namespace = "hostprobe";
};

// Checks that --run-on-start, --schedule and --params-file name known probes and valid params,
// so that a typo fails at start-up rather than silently every hour.
Status check_automation(const ServeConfig& config, const runs::ProbeRegistry& registry);

// Exit status: 0 after a clean shutdown, 1 when it cannot start.
int run_serve(const ServeConfig& config, Logger& log);

// HTTP worker threads for a CPU budget. cpp-httplib holds a thread per open connection, so a
// few per worker; connections beyond that wait their turn, and a busy connection's next request
// goes behind them (BoundedPool::requeue_if_others_wait). Idle threads end.
size_t http_threads_for(uint32_t workers);
// Runner threads: one per budget worker for the probes that measure, plus one so that a light
// probe (cpu) never waits behind a long measurement.
size_t runner_threads_for(uint32_t workers);

// Leftovers of a run that was killed (kill -9, OOM): stale test files in the allowed
// directories and stale work directories, removed before anything else runs.
void remove_probe_leftovers(const probes::StoragePolicy& storage, Logger& log);

}  // namespace hostprobe::app
