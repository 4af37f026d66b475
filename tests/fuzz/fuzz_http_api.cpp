// HTTP request handling as HttpServer does it, minus the socket: the access policy, the
// body-less POST rule, then the real Router with the real host, runs and index routes, over a
// replayed machine (tests/fixtures/sysroots) and the real probes.
//
// The input is one or more raw requests separated by a line "####":
//   @10.0.0.7                       (optional: the peer address; 127.0.0.1 otherwise)
//   POST /v1/runs?wait=0 HTTP/1.1
//   Content-Type: application/json
//   Content-Length: 17
//
//   {"probe": "cpu"}
// "{run}" in a request target stands for the id of the newest run the input created (or a
// restored one), so that GET and DELETE /v1/runs/{id} reach a real run.
//
// The runner is never started: submitted runs stay queued, nothing is measured and no thread
// is created, and each input gets a fresh runner, so inputs do not affect each other.
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "api/host_api.hpp"
#include "api/openapi.hpp"
#include "api/runs_api.hpp"
#include "core/strings.hpp"
#include "fuzz_support.hpp"
#include "host/host_facts.hpp"
#include "http/access_policy.hpp"
#include "metrics/exposition.hpp"
#include "metrics/host_collector.hpp"
#include "probes/registry.hpp"
#include "runs/latest_result_metrics.hpp"
#include "runs/run_metrics.hpp"
#include "runs/runner.hpp"
#include "task/task_state.hpp"

using namespace hostprobe;
using nlohmann::json;

namespace {

constexpr size_t kMaxRequestsPerInput = 8;
constexpr size_t kMaxHeaderBytes = 16 * 1024;  // HttpServer's default: more is a 431
const char* const kRestoredRunId = "0000000000000001";

// What lives as long as the daemon: the machine, its facts and the probes.
struct Daemon {
    SysRoot root{fuzz::fixtures_dir() + "/sysroots/fargate-e5-2686v4"};
    task::TaskState host{host::collect_host_facts(root)};
    runs::ProbeRegistry registry = [] {
        probes::StoragePolicy storage;
        storage.allowed_dirs = probes::resolve_allowed_dirs({"/tmp"}).value();
        storage.free_space = [](const std::string&) -> Result<uint64_t> {
            return uint64_t{64} << 30;
        };
        return probes::builtin_probes({.storage = storage});
    }();
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    http::AccessPolicy trusted_loopback;  // the default: no token, loopback trusted
    http::AccessPolicy with_token = [] {
        http::AccessPolicy policy;
        policy.token = "fuzz-token";
        policy.protect_reads = true;
        return policy;
    }();
};

// What serve() builds around a runner; fresh for every input.
struct Service {
    explicit Service(const Daemon& daemon)
        : runner(runs::RunnerOptions{4, 16, 1}, daemon.registry,
                 runs::ProbeContextSource{daemon.root, daemon.host},
                 [this](const runs::Run& run) { run_metrics.record_finished(run); }),
          host_context{daemon.root, daemon.host, exposition, daemon.started, live_history},
          // ?wait= would hold a request until a run finishes, and these never do: the limit
          // keeps every wait under a millisecond.
          runs_context{runner, daemon.registry, run_creations, waiters, 0.001} {
        runner.restore({restored_run()});
        exposition.add(std::make_shared<metrics::BuildInfoCollector>());
        exposition.add(std::make_shared<metrics::HostCollector>(daemon.root, daemon.host));
        exposition.add(run_metrics.registry());
        exposition.add(std::make_shared<runs::RunnerCollector>(runner));
        exposition.add(std::make_shared<const runs::LatestResultMetrics>(runner, daemon.registry));
        api::add_host_routes(router, host_context);
        api::add_runs_routes(router, runs_context);
        api::add_openapi_route(router, daemon.registry);
        api::add_index_route(router);
    }

    // A failed run from an earlier life (journal replay), so GET /v1/runs has history.
    static runs::Run restored_run() {
        runs::Run run;
        run.id = kRestoredRunId;
        run.probe = "cipher";
        run.params = json::object();
        run.trigger = "schedule";
        run.state = runs::RunState::failed;
        const auto now = WallClock::now();
        run.created_at = now;
        run.started_at = now;
        run.finished_at = now;
        run.error = "it failed on purpose";
        return run;
    }

    runs::RunMetrics run_metrics;
    api::RateLimiter run_creations{30};  // the default; 429s are valid replies too
    api::WaitSlots waiters{2};
    metrics::Exposition exposition;
    host::LiveHistory live_history;
    runs::Runner runner;
    api::HostApiContext host_context;
    api::RunsApiContext runs_context;
    http::Router router;
};

bool is_served_method(std::string_view method) {
    for (std::string_view served : {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
        if (method == served) return true;
    }
    return false;
}

std::string replace_all(std::string text, std::string_view from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// A raw request as cpp-httplib 0.11 would hand it over: method and target from the request
// line (the path URL-decoded, the query parsed into params), "Name: value" headers up to an
// empty line, then the body. Empty when cpp-httplib would answer 400 itself.
std::optional<httplib::Request> parse_request(std::string_view text, const std::string& run_id) {
    httplib::Request request;
    request.remote_addr = "127.0.0.1";
    size_t at = 0;
    auto next_line = [&]() -> std::optional<std::string_view> {
        if (at >= text.size()) return std::nullopt;
        const size_t newline = text.find('\n', at);
        const size_t end = newline == std::string_view::npos ? text.size() : newline;
        std::string_view line = text.substr(at, end - at);
        at = newline == std::string_view::npos ? text.size() : newline + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return line;
    };

    auto line = next_line();
    if (line && line->rfind("@", 0) == 0) {
        request.remote_addr = std::string(line->substr(1));
        line = next_line();
    }
    if (!line) return std::nullopt;
    const auto words = split(*line, ' ');
    if (words.size() < 2 || words.size() > 3 || !is_served_method(words[0])) return std::nullopt;
    request.method = std::string(words[0]);
    request.target = replace_all(std::string(words[1]), "{run}", run_id);
    const auto target_parts = split(request.target, '?');
    if (target_parts.size() > 2) return std::nullopt;
    request.path = httplib::detail::decode_url(std::string(target_parts[0]), false);
    if (target_parts.size() == 2 && !target_parts[1].empty())
        httplib::detail::parse_query_text(std::string(target_parts[1]), request.params);

    while ((line = next_line()) && !line->empty()) {
        const size_t colon = line->find(':');
        if (colon == std::string_view::npos || colon == 0) return std::nullopt;
        request.headers.emplace(std::string(line->substr(0, colon)),
                                std::string(trim(line->substr(colon + 1))));
    }
    request.body = std::string(text.substr(std::min(at, text.size())));
    if (auto length = parse_uint64(request.get_header_value("Content-Length"));
        length && *length < request.body.size()) {
        request.body.resize(*length);
    }
    return request;
}

size_t header_bytes(const httplib::Request& request) {
    size_t total = 0;
    for (const auto& [name, value] : request.headers)
        total += name.size() + value.size() + 4;
    return total;
}

std::string header(const http::Reply& reply, std::string_view name) {
    for (const auto& [key, value] : reply.headers) {
        if (key == name) return value;
    }
    return "";
}

void check_denial(const std::optional<http::AccessDenial>& denial) {
    if (!denial) return;
    FUZZ_CHECK(denial->status == 401 || denial->status == 403, denial->message);
    FUZZ_CHECK(denial->www_authenticate.has_value() == (denial->status == 401), denial->message);
}

// What HttpServer's handlers do with one request; returns the reply when it was routed.
std::optional<http::Reply> serve(const Daemon& daemon, const Service& service,
                                 httplib::Request& request) {
    if (header_bytes(request) > kMaxHeaderBytes) return std::nullopt;  // a 431
    const std::string authorization = request.get_header_value("Authorization");
    check_denial(http::check_access(daemon.with_token, request.method, request.path,
                                    request.remote_addr, authorization));
    const auto denial = http::check_access(daemon.trusted_loopback, request.method, request.path,
                                           request.remote_addr, authorization);
    check_denial(denial);
    if (denial) return std::nullopt;
    // Without Content-Length or Transfer-Encoding the body is empty (RFC 9112 6.3).
    if (!request.has_header("Content-Length") && !request.has_header("Transfer-Encoding"))
        request.body.clear();
    // Router::dispatch promises never to throw; an exception here is a crash on purpose.
    return service.router.dispatch(request);
}

void check_reply(const httplib::Request& request, const http::Reply& reply) {
    const std::string what = request.method + " " + request.target + " -> " +
                             std::to_string(reply.status) + " " + reply.body;
    // 500 is what the router makes of an exception in a handler: a bug, whatever the input.
    FUZZ_CHECK(reply.status != 500, what);
    FUZZ_CHECK(reply.status >= 200 && reply.status <= 599, what);
    if (reply.content_type == "application/json") {
        FUZZ_CHECK(json::accept(reply.body), what);
    }
    if (reply.status == 405) FUZZ_CHECK(!header(reply, "Allow").empty(), what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const Daemon daemon;
    Service service(daemon);
    std::string run_id = kRestoredRunId;

    std::string_view rest = fuzz::as_text(data, size);
    for (size_t count = 0; count < kMaxRequestsPerInput && !rest.empty(); ++count) {
        const auto [one, after] = fuzz::split_at_line(rest, "####");
        rest = after;
        auto request = parse_request(one, run_id);
        if (!request) continue;
        auto reply = serve(daemon, service, *request);
        if (!reply) continue;
        check_reply(*request, *reply);
        const std::string location = header(*reply, "Location");
        if (location.rfind("/v1/runs/", 0) == 0) run_id = location.substr(9);
    }
    return 0;
}
