#include "api/host_api.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "api/page_api.hpp"
#include "core/build_info.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"
#include "report/live_json.hpp"
#include "report/live_text.hpp"
#include "report/task_json.hpp"

namespace hostprobe::api {

std::optional<host::ThrottlingCounters> current_throttling(const HostApiContext& context) {
    // The snapshot is held while its path is used: ECS metadata may replace it meanwhile.
    const auto host = context.facts.host_snapshot();
    const auto& source = host->cgroup.throttling_source;
    if (!source) return std::nullopt;
    auto counters = host::read_throttling(context.root, *source);
    if (!counters) return std::nullopt;
    return *counters;
}

namespace {

std::shared_ptr<const ecs::TaskStatsSnapshot> task_snapshot(const HostApiContext& context) {
    return context.task_stats != nullptr ? context.task_stats->snapshot() : nullptr;
}

Result<http::Reply> host_reply(const HostApiContext& context, const http::RouteRequest& request) {
    const auto format = http::answer_format(request);
    if (!format) return format.error();
    const auto throttling = current_throttling(context);
    const auto facts = context.facts.snapshot();
    const auto sample = context.live.record(
        host::read_live(context.root, facts->host, std::chrono::steady_clock::now()));
    const auto rates =
        sample.baseline ? host::compute_live_rates(*sample.baseline, sample.now) : std::nullopt;
    const auto task_stats = task_snapshot(context);
    if (*format == http::AnswerFormat::text) {
        return http::Reply::text(report::host_text(
            *facts, throttling, report::live_summary(sample.now, rates),
            task_stats ? std::optional(report::task_summary(*task_stats)) : std::nullopt));
    }
    return http::Reply::json(
        host_answer_json(*facts, throttling, sample.now, rates, task_stats.get()));
}

}  // namespace

nlohmann::json host_answer_json(const task::TaskFacts& facts,
                                const std::optional<host::ThrottlingCounters>& throttling,
                                const host::LiveReading& now,
                                const std::optional<host::LiveRates>& rates,
                                const ecs::TaskStatsSnapshot* task_stats) {
    auto body = report::host_json(facts, throttling);
    body["live"] = report::live_json(now, rates);
    body["live"]["task"] =
        task_stats != nullptr ? report::task_json(*task_stats, throttling) : nlohmann::json();
    return body;
}

void add_host_routes(http::Router& router, const HostApiContext& context) {
    router.add(
        "GET", "/healthz",
        http::RouteDoc{.tag = "host",
                       .summary = "liveness: 200 while the daemon serves",
                       .responses = {{http::kOk, "serving", {{"application/json", "Health"}}, {}}}},
        [&context](const http::RouteRequest&) -> Result<http::Reply> {
            const auto uptime = std::chrono::steady_clock::now() - context.started;
            return http::Reply::json(
                {{"status", "ok"},
                 {"version", kVersion},
                 {"uptime_seconds",
                  std::chrono::duration_cast<std::chrono::duration<double>>(uptime).count()}});
        });
    router.add(
        "GET", "/v1/host",
        http::RouteDoc{
            .tag = "host",
            .summary = "CPU, topology, caches, hypervisor, cgroup limits, CPU budget and live use "
                       "with rates (?format=text for lscpu style)",
            .query = {http::format_query_doc("lscpu style")},
            .responses = {http::json_or_text_doc("Host", "the host's facts and live use"),
                          http::error_doc(400, "format is neither json nor text")}},
        [&context](const http::RouteRequest& request) { return host_reply(context, request); });
    router.add(
        "GET", "/metrics",
        http::RouteDoc{
            .tag = "host",
            .summary = "Prometheus metrics",
            .responses =
                {{http::kOk, "Prometheus text exposition format 0.0.4", {{"text/plain", ""}}, {}}}},
        [&context](const http::RouteRequest&) -> Result<http::Reply> {
            return http::Reply::text(context.metrics.render(), metrics::Exposition::kContentType);
        });
}

void add_index_route(http::Router& router, std::span<const http::StaticAsset> page) {
    constexpr std::string_view description =
        "this index; a browser (Accept preferring text/html) gets the page";
    nlohmann::json endpoints = nlohmann::json::array();
    endpoints.push_back({{"method", "GET"}, {"path", "/"}, {"description", description}});
    for (const auto& route : router.routes()) {
        endpoints.push_back({{"method", route.method},
                             {"path", route.pattern},
                             {"description", route.description}});
    }
    const nlohmann::json index = {
        {"name", "hostprobe"}, {"version", kVersion}, {"endpoints", endpoints}};
    router.add(
        "GET", "/",
        http::RouteDoc{
            .tag = "page",
            .summary = std::string(description),
            .responses = {{http::kOk,
                           "the endpoints as JSON, or the page's HTML to a client that prefers "
                           "text/html (Vary: Accept)",
                           {{"application/json", "Index"}, {"text/html", ""}},
                           {}},
                          {http::kNotModified, "the page is unchanged (If-None-Match)", {}, {}}}},
        [index, page](const http::RouteRequest& request) -> Result<http::Reply> {
            if (auto document = page_document_reply(request, page)) return std::move(*document);
            http::Reply reply = http::Reply::json(index);
            // HttpServer compresses JSON when Accept-Encoding allows gzip (answer_compression).
            reply.headers.emplace_back("Vary", "Accept, Accept-Encoding");
            return reply;
        });
}

}  // namespace hostprobe::api
