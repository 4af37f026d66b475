#include "api/runs_api.hpp"

#include <httplib.h>

#include <cmath>

#include "api/openapi_schemas.hpp"
#include "core/json_reads.hpp"
#include "core/strings.hpp"
#include "core/untrusted_json.hpp"
#include "http/entity_tag.hpp"
#include "http/http_server.hpp"
#include "runs/run_text.hpp"

namespace hostprobe::api {

namespace {

using nlohmann::json;

// The HTTP server has already bounded the body by --max-body-bytes (at most 16 MiB); a run
// request is a few dozen values three levels deep.
const JsonLimits kRunRequestLimits{
    .max_bytes = 16 << 20, .max_depth = kMaxJsonDepth, .max_values = 10'000};

// GET /v1/runs?limit=: the most runs one answer lists.
constexpr uint64_t kMaxListedRuns = 1000;

std::string location(const runs::Run& run) {
    return "/v1/runs/" + run.id;
}

http::Reply run_reply(const runs::Run& run, int status) {
    http::Reply reply = http::Reply::json_from_text(runs::to_json_text(run), status);
    reply.headers.emplace_back("Location", location(run));
    return reply;
}

// What a request that starts or stops a run got: done, or accepted and still going.
int outcome_status(const runs::Run& run) {
    return runs::is_finished(run.state) ? http::kOk : http::kAccepted;
}

// {"runs": [...]} printed as json_text would print it, from each run's own text.
std::string runs_list_text(const std::vector<runs::Run>& listed) {
    if (listed.empty()) return "{\n  \"runs\": []\n}";
    size_t size = 64;
    for (const auto& run : listed)
        size += run.result.pretty_size() * 5 / 4 + 1024;  // deeper indentation, envelope
    std::string text;
    text.reserve(size);
    text += "{\n  \"runs\": [";
    for (size_t i = 0; i < listed.size(); ++i) {
        text += i == 0 ? "\n    " : ",\n    ";
        runs::append_json_text(text, listed[i], 4);
    }
    text += "\n  ]\n}";
    return text;
}

std::optional<std::string> query(const httplib::Request& request, const char* name) {
    if (!request.has_param(name)) return std::nullopt;
    return request.get_param_value(name);
}

Result<double> wait_seconds(const httplib::Request& request, double max_wait) {
    auto text = query(request, "wait");
    if (!text) return 0.0;
    auto seconds = parse_double(*text);
    if (!seconds || *seconds < 0 || *seconds > max_wait) {
        return make_error(ErrorCode::invalid_argument,
                          "wait must be a number of seconds from 0 to " +
                              std::to_string(static_cast<int>(max_wait)));
    }
    return *seconds;
}

Result<http::Reply> create_run(const RunsApiContext& context, const http::RouteRequest& request) {
    auto wait = wait_seconds(request.http, context.max_wait_seconds);
    if (!wait) return wait.error();
    auto parsed =
        parse_run_request(request.http.get_header_value("Content-Type"), request.http.body);
    if (!parsed) return parsed.error();
    const std::optional<WaitSlots::Slot> waiting =
        *wait > 0 ? context.waiters.try_take() : std::nullopt;
    if (*wait > 0 && !waiting) {
        http::Reply full = http::error_reply(make_error(
            ErrorCode::busy, std::to_string(context.waiters.capacity()) +
                                 " requests are already waiting for runs, as many as may hold an "
                                 "HTTP thread; start the run without ?wait and poll GET "
                                 "/v1/runs/{id}"));
        full.headers.emplace_back("Retry-After", "1");
        return full;
    }
    const std::string& client = request.http.remote_addr;
    if (!context.run_creations.allow(client)) {
        http::Reply limited = http::error_reply(make_error(
            ErrorCode::busy,
            client + " started too many runs in the last minute (--max-runs-per-minute)"));
        limited.headers.emplace_back(
            "Retry-After", std::to_string(context.run_creations.seconds_until_allowed(client)));
        return limited;
    }
    auto submitted = context.runner.submit(parsed->probe, parsed->params, "api");
    if (!submitted) {
        if (submitted.error().code != ErrorCode::busy) return submitted.error();
        http::Reply busy = http::error_reply(submitted.error());
        busy.headers.emplace_back(
            "Retry-After", std::to_string(static_cast<long>(context.runner.seconds_until_slot())));
        return busy;
    }
    runs::Run run = *submitted;
    if (*wait > 0) {
        const auto timeout =
            std::chrono::milliseconds(static_cast<int64_t>(std::ceil(*wait * 1000)));
        run = context.runner.wait(run.id, timeout).value_or(run);
    }
    return run_reply(run, outcome_status(run));
}

Result<http::Reply> get_run(const RunsApiContext& context, const http::RouteRequest& request) {
    const std::string& id = request.path_params.at("id");
    auto run = context.runner.get(id);
    if (!run) return make_error(ErrorCode::not_found, "no run with id '" + id + "'");
    const auto format = http::answer_format(request);
    if (!format) return format.error();
    if (*format == http::AnswerFormat::text) {
        std::string text = runs::run_text(*run, context.registry);
        if (text.empty()) {
            return http::Reply::text("run " + run->id + " is " + runs::to_string(run->state) +
                                     (run->error.empty() ? "" : ": " + run->error) + "\n");
        }
        return http::Reply::text(std::move(text));
    }
    return run_reply(*run, http::kOk);
}

// The page lists runs every few seconds, and the list rarely changes between two looks: an
// ETag of the runs' version lets a browser ask "still this?" and get a 304 without the list
// being printed and compressed again (1.8 ms for 50 runs). Weak: gzip or not, same runs.
std::string listing_tag(const std::string& version) {
    return "\"runs-" + version + "\"";
}

std::vector<std::pair<std::string, std::string>> listing_validators(const std::string& version) {
    return {{"ETag", "W/" + listing_tag(version)}, {"Cache-Control", "no-cache"}};
}

// What identifies a filter's listing in the cache.
std::string filter_key(const runs::RunFilter& filter) {
    return filter.probe.value_or("") + "\n" + (filter.state ? runs::to_string(*filter.state) : "") +
           "\n" + std::to_string(filter.limit);
}

http::Reply listing_reply(const RunsApiContext& context, const runs::RunFilter& filter,
                          const std::string& if_none_match) {
    // A miss takes the runner's lock again to list: cheaper than holding it while a 304 is made.
    std::string version = context.runner.listing_version();
    if (http::if_none_match_hits(if_none_match, {listing_tag(version)}))
        return http::Reply::not_modified(listing_validators(version));
    const std::string key = filter_key(filter);
    std::shared_ptr<const std::string> text =
        context.listings ? context.listings->find(key, version) : nullptr;
    if (!text) {
        auto listing = context.runner.listing(filter);
        version = std::move(listing.version);  // newer, when a run changed in between
        text = std::make_shared<const std::string>(runs_list_text(listing.runs));
        if (context.listings) context.listings->store(key, version, text);
    }
    auto reply = http::Reply::json_from_text(*text);
    reply.headers = listing_validators(version);
    return reply;
}

Result<http::Reply> list_runs(const RunsApiContext& context, const http::RouteRequest& request) {
    runs::RunFilter filter;
    if (auto probe = query(request.http, "probe")) {
        if (context.registry.find(*probe) == nullptr) {
            return make_error(
                ErrorCode::invalid_argument,
                "unknown probe '" + *probe + "'; probes: " + join(context.registry.names(), ", "));
        }
        filter.probe = *probe;
    }
    if (auto state = query(request.http, "state")) {
        auto parsed = runs::parse_run_state(*state);
        if (!parsed) return parsed.error();
        filter.state = *parsed;
    }
    if (auto limit = query(request.http, "limit")) {
        auto parsed = parse_uint64(*limit);
        if (!parsed || *parsed < 1 || *parsed > kMaxListedRuns) {
            return make_error(ErrorCode::invalid_argument,
                              "limit must be a number from 1 to " + std::to_string(kMaxListedRuns));
        }
        filter.limit = *parsed;
    }
    return listing_reply(context, filter, request.http.get_header_value("If-None-Match"));
}

Result<http::Reply> cancel_run(const RunsApiContext& context, const http::RouteRequest& request) {
    auto cancelled = context.runner.cancel(request.path_params.at("id"));
    if (!cancelled) return cancelled.error();
    return run_reply(*cancelled, outcome_status(*cancelled));
}

Result<http::Reply> list_probes(const RunsApiContext& context) {
    json probes = json::array();
    for (const auto& probe : context.registry.probes()) {
        probes.push_back({{"name", probe->name()},
                          {"description", probe->description()},
                          {"exclusive", probe->exclusive()},
                          {"params", probe->params().describe()}});
    }
    return http::Reply::json({{"probes", std::move(probes)}});
}

}  // namespace

Result<RunRequest> parse_run_request(const std::string& content_type, const std::string& body) {
    const std::string media_type = to_lower(trim(split(content_type, ';')[0]));
    if (media_type != "application/json") {
        return make_error(
            ErrorCode::unsupported_type,
            "the body must be JSON (Content-Type: application/json), not '" + content_type + "'");
    }
    auto document = parse_untrusted_json(body, kRunRequestLimits);
    if (!document) return document.error();
    if (!document->is_object())
        return make_error(ErrorCode::invalid_argument, "the body must be a JSON object");
    for (const auto& [key, value] : document->items()) {
        if (key != "probe" && key != "params") {
            return make_error(
                ErrorCode::invalid_argument,
                "unknown field '" + key + "'; a run is {\"probe\": ..., \"params\": {...}}");
        }
    }
    const json* probe = find_member(*document, "probe");
    if (probe == nullptr || !probe->is_string()) {
        return make_error(ErrorCode::invalid_argument, "\"probe\" (a string) is required");
    }
    const json* params = find_member(*document, "params");
    RunRequest request{probe->get<std::string>(), params ? *params : json::object()};
    if (!request.params.is_object())
        return make_error(ErrorCode::invalid_argument, "\"params\" must be an object");
    return request;
}

namespace {

// A run as JSON, with Location.
http::ResponseDoc run_doc(int status, std::string description) {
    return {status, std::move(description), {{"application/json", "Run"}}, {"Location"}};
}

http::ResponseDoc busy_doc(std::string description) {
    http::ResponseDoc busy = http::error_doc(429, std::move(description));
    busy.headers.push_back("Retry-After");
    return busy;
}

http::RouteDoc create_run_doc(const RunsApiContext& context) {
    return {
        .tag = "runs",
        .summary = "start a run: {\"probe\": ..., \"params\": {...}}; ?wait=N holds the answer",
        .query = {{"wait",
                   "seconds to hold the answer until the run ends (200 if it did, else 202)",
                   {{"type", "number"}, {"minimum", 0}, {"maximum", context.max_wait_seconds}}}},
        .request_body = "RunRequest",
        .request_body_description =
            "at most " + std::to_string(context.max_body_bytes) +
            " bytes (--max-body-bytes; a larger one is refused with 413 before it is read), " +
            std::to_string(kRunRequestLimits.max_depth) + " levels deep and " +
            std::to_string(kRunRequestLimits.max_values) + " values",
        .responses = {run_doc(http::kOk, "the run, finished within ?wait"),
                      run_doc(http::kAccepted, "the run, queued or running"),
                      http::error_doc(400, "the body or a parameter is not valid"),
                      http::error_doc(404, "no such probe"),
                      http::error_doc(415, "the body is not application/json"),
                      busy_doc("the queue is full, too many requests wait, or this client "
                               "started too many runs this minute (--max-runs-per-minute)"),
                      http::error_doc(503, "shutting down, or the storage cannot be used")}};
}

http::RouteDoc list_runs_doc(const RunsApiContext& context) {
    return {.tag = "runs",
            .summary = "recent runs, newest first (?probe=&state=&limit=)",
            .query = {{"probe", "only runs of this probe", {{"enum", context.registry.names()}}},
                      {"state", "only runs in this state", {{"enum", run_state_names()}}},
                      {"limit",
                       "at most this many runs",
                       {{"type", "integer"},
                        {"format", "int32"},
                        {"minimum", 1},
                        {"maximum", kMaxListedRuns}}}},
            .responses = {
                {http::kOk,
                 "the runs (ETag: the runs' version)",
                 {{"application/json", "RunList"}},
                 {}},
                {http::kNotModified, "no run changed since that ETag (If-None-Match)", {}, {}},
                http::error_doc(400, "a query parameter is not valid")}};
}

http::RouteDoc get_run_doc() {
    return {.tag = "runs",
            .summary = "one run (?format=text for the probe's report)",
            .query = {http::format_query_doc("the probe's report, or the run's state")},
            .responses = {http::json_or_text_doc("Run", "the run"),
                          http::error_doc(400, "format is neither json nor text"),
                          http::error_doc(404, "no run with this id")}};
}

http::RouteDoc cancel_run_doc() {
    return {.tag = "runs",
            .summary = "cancel a run",
            .responses = {run_doc(http::kOk, "the run, cancelled"),
                          run_doc(http::kAccepted, "the run, asked to stop"),
                          http::error_doc(404, "no run with this id"),
                          http::error_doc(409, "the run has already finished")}};
}

}  // namespace

void add_runs_routes(http::Router& router, const RunsApiContext& context) {
    router.add(
        "POST", "/v1/runs", create_run_doc(context),
        [&context](const http::RouteRequest& request) { return create_run(context, request); });
    router.add(
        "GET", "/v1/runs", list_runs_doc(context),
        [&context](const http::RouteRequest& request) { return list_runs(context, request); });
    router.add("GET", "/v1/runs/{id}", get_run_doc(),
               [&context](const http::RouteRequest& request) { return get_run(context, request); });
    router.add(
        "DELETE", "/v1/runs/{id}", cancel_run_doc(),
        [&context](const http::RouteRequest& request) { return cancel_run(context, request); });
    router.add(
        "GET", "/v1/probes",
        http::RouteDoc{
            .tag = "runs",
            .summary = "the probes and their parameters",
            .responses = {{http::kOk, "every probe", {{"application/json", "ProbeList"}}, {}}}},
        [&context](const http::RouteRequest&) { return list_probes(context); });
}

}  // namespace hostprobe::api
