#include "api/task_api.hpp"

#include <httplib.h>

#include "report/task_json.hpp"

namespace hostprobe::api {

namespace {

Result<http::Reply> task_reply(const HostApiContext& context, const http::RouteRequest& request) {
    const auto format = http::answer_format(request);
    if (!format) return format.error();
    if (context.task_stats == nullptr) {
        return make_error(ErrorCode::not_found,
                          "not in an ECS task: ECS_CONTAINER_METADATA_URI_V4 is not set, so "
                          "there are no task stats to read");
    }
    const auto snapshot = context.task_stats->snapshot();
    if (!snapshot) {
        return make_error(ErrorCode::not_found,
                          "the ECS task stats have not been read yet; try again in a moment");
    }
    const auto throttling = current_throttling(context);
    if (*format == http::AnswerFormat::text)
        return http::Reply::text(report::task_text(*snapshot, throttling));
    return http::Reply::json(report::task_json(*snapshot, throttling));
}

}  // namespace

void add_task_routes(http::Router& router, const HostApiContext& context) {
    router.add(
        "GET", "/v1/task",
        http::RouteDoc{
            .tag = "host",
            .summary = "every container of the ECS task (CPU, memory, network, block I/O, "
                       "states) against the task's limits, from the task stats read every "
                       "10 s (?format=text for a report)",
            .query = {http::format_query_doc("a report")},
            .responses = {http::json_or_text_doc("Task", "the ECS task's containers"),
                          http::error_doc(400, "format is neither json nor text"),
                          http::error_doc(404, "not in an ECS task, or its stats not read yet")}},
        [&context](const http::RouteRequest& request) { return task_reply(context, request); });
}

}  // namespace hostprobe::api
