// The runs API: POST/GET/DELETE /v1/runs and GET /v1/probes. Thin handlers: parse, call the
// runner, map errors to status codes.
#pragma once

#include "api/listing_cache.hpp"
#include "api/rate_limiter.hpp"
#include "api/wait_slots.hpp"
#include "http/http_server.hpp"
#include "http/router.hpp"
#include "runs/probe.hpp"
#include "runs/runner.hpp"

namespace hostprobe::api {

struct RunsApiContext {
    runs::Runner& runner;
    const runs::ProbeRegistry& registry;
    RateLimiter& run_creations;  // per client address
    WaitSlots& waiters;          // requests holding an HTTP thread with ?wait
    double max_wait_seconds = 600;
    size_t max_body_bytes =
        http::ServerOptions{}.max_body_bytes;  // as served: the document says it
    ListingCache* listings = nullptr;          // rendered listings; none kept when null
};

// The context must outlive the router.
void add_runs_routes(http::Router& router, const RunsApiContext& context);

// The body of POST /v1/runs: {"probe": "...", "params": {...}}. Exposed for tests and fuzzing.
struct RunRequest {
    std::string probe;
    nlohmann::json params;
};
Result<RunRequest> parse_run_request(const std::string& content_type, const std::string& body);

}  // namespace hostprobe::api
