// The endpoints of the foundation: GET / (the index, or the page for a browser), /healthz,
// /v1/host and /metrics.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "core/sysroot.hpp"
#include "ecs/task_stats_reader.hpp"
#include "host/live_history.hpp"
#include "host/live_rates.hpp"
#include "host/live_reading.hpp"
#include "http/router.hpp"
#include "http/static_asset.hpp"
#include "metrics/exposition.hpp"
#include "task/task_state.hpp"

namespace hostprobe::api {

struct HostApiContext {
    const SysRoot& root;
    const task::TaskState& facts;
    const metrics::Exposition& metrics;
    std::chrono::steady_clock::time_point started;
    // The readings GET /v1/host's `live` rates are computed against (owned by the server).
    host::LiveHistory& live;
    // Every container of the ECS task (GET /v1/task, live.task); null outside ECS.
    const ecs::TaskStatsSource* task_stats = nullptr;
};

// This container's CFS throttling counters, read now; none without a CPU cgroup that has them.
std::optional<host::ThrottlingCounters> current_throttling(const HostApiContext& context);

// GET /v1/host's JSON: the facts (host_json) and the live reading with its rates; `live.task`
// is the ECS task's stats (report::task_json) once read, else null.
nlohmann::json host_answer_json(const task::TaskFacts& facts,
                                const std::optional<host::ThrottlingCounters>& throttling,
                                const host::LiveReading& now,
                                const std::optional<host::LiveRates>& rates,
                                const ecs::TaskStatsSnapshot* task_stats = nullptr);

// The context must outlive the router.
void add_host_routes(http::Router& router, const HostApiContext& context);
// GET /: lists every route registered so far (add it last); a client that prefers HTML gets
// the page's document from `page` instead (api/page_api.hpp).
void add_index_route(http::Router& router, std::span<const http::StaticAsset> page = {});

}  // namespace hostprobe::api
