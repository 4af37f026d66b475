#include "api/openapi.hpp"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "api/openapi_schemas.hpp"
#include "core/build_info.hpp"
#include "core/strings.hpp"
#include "http/access_policy.hpp"

namespace hostprobe::api {

namespace {

using nlohmann::json;

constexpr const char* kBearerScheme = "bearerToken";

bool is_path_param(const std::string& segment) {
    return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// The router's "{name...}" takes the rest of the path; OpenAPI has no such template, so the
// document names it "{name}" and says that it may hold slashes.
constexpr std::string_view kRestOfPath = "...";

bool is_rest_of_path(const std::string& segment) {
    return is_path_param(segment) && segment.ends_with(std::string(kRestOfPath) + "}");
}

std::string path_param_name(const std::string& segment) {
    std::string name = segment.substr(1, segment.size() - 2);
    if (is_rest_of_path(segment)) name.resize(name.size() - kRestOfPath.size());
    return name;
}

std::vector<std::string> pattern_segments(const std::string& pattern) {
    std::vector<std::string> segments;
    for (std::string_view part : split(pattern, '/')) {
        if (!part.empty()) segments.emplace_back(part);
    }
    return segments;
}

// A path the pattern matches, to ask the access policy about.
std::string sample_path(const std::string& pattern) {
    std::string path;
    for (const auto& segment : pattern_segments(pattern))
        path += "/" + (is_path_param(segment) ? std::string("x") : segment);
    return path.empty() ? "/" : path;
}

// Whether a request of a trusted peer without a token is refused when the agent has a token
// (and, with protect_reads, --auth-reads): asked of the access policy itself.
bool needs_token(const std::string& method, const std::string& pattern, bool protect_reads) {
    http::AccessPolicy policy;
    policy.token = "token";
    policy.protect_reads = protect_reads;
    return http::check_access(policy, method, sample_path(pattern), "127.0.0.1", "", "127.0.0.1")
        .has_value();
}

// Mutating requests always show the token (trusted peers may go without when the agent has
// none); reads only under --auth-reads, hence the empty alternative; /healthz never.
json security_for(const std::string& method, const std::string& pattern) {
    const json bearer = {{kBearerScheme, json::array()}};
    if (needs_token(method, pattern, false)) return json::array({bearer});
    if (needs_token(method, pattern, true)) return json::array({bearer, json::object()});
    return json::array();
}

std::string operation_id(const std::string& method, const std::string& pattern) {
    std::string id = to_lower(method);
    for (const auto& segment : pattern_segments(pattern)) {
        id += "_";
        for (char c : segment) {
            if (std::isalnum(static_cast<unsigned char>(c))) id += c;
        }
    }
    return pattern_segments(pattern).empty() ? id + "_root" : id;
}

std::string openapi_path(const std::string& pattern) {
    std::string path;
    for (const auto& segment : pattern_segments(pattern))
        path += "/" + (is_path_param(segment) ? "{" + path_param_name(segment) + "}" : segment);
    return path.empty() ? "/" : path;
}

// A path parameter is part of the request target, which cpp-httplib refuses past this length
// (and the connection's request-line limit with it: 414).
constexpr size_t kMaxPathParamLength = CPPHTTPLIB_REQUEST_URI_MAX_LENGTH;

json path_parameters(const std::string& pattern) {
    json parameters = json::array();
    for (const auto& segment : pattern_segments(pattern)) {
        if (!is_path_param(segment)) continue;
        const bool rest = is_rest_of_path(segment);
        json parameter = {
            {"name", path_param_name(segment)},
            {"in", "path"},
            {"required", true},
            {"description", rest ? "the rest of the path: it may hold '/' (vendor/x.js)"
                                 : "one segment of the path"},
            {"schema",
             {{"type", "string"},
              {"minLength", 1},
              {"maxLength", kMaxPathParamLength},
              {"pattern", rest ? "^[^?#]+$" : "^[^/?#]+$"}}}};
        parameters.push_back(std::move(parameter));
    }
    return parameters;
}

json response_object(const http::ResponseDoc& response) {
    json object = {{"description", response.description}};
    for (const auto& body : response.bodies) {
        object["content"][body.media_type]["schema"] =
            body.schema.empty() ? json{{"type", "string"}}
                                : json{{"$ref", schema_ref(body.schema)}};
    }
    for (const auto& header : response.headers)
        object["headers"][header] = {{"$ref", "#/components/headers/" + header}};
    return object;
}

// What any request may meet before its handler: the screen of headers and framing, the
// access policy, and the server's own errors.
std::vector<http::ResponseDoc> errors_on_the_way_in(const std::string& method, bool secured) {
    std::vector<http::ResponseDoc> errors = {
        http::error_doc(400,
                        "malformed request: a header (a line not ended by CRLF, without a colon "
                        "or folded), a query parameter or the body"),
        http::error_doc(408, "the request did not arrive whole within --request-timeout"),
        http::error_doc(411, "a chunked body; send Content-Length"),
        http::error_doc(415, "a compressed body (Content-Encoding other than identity)"),
        http::error_doc(413, "the body is over --max-body-bytes"),
        http::error_doc(414, "the request target is too long"),
        http::error_doc(431, "the headers are too large"),
        http::error_doc(500, "internal error"),
        http::error_doc(501, "a transfer coding other than chunked")};
    if (secured) {
        http::ResponseDoc unauthorized =
            http::error_doc(401, "the bearer token is missing or not valid");
        unauthorized.headers.push_back("WWW-Authenticate");
        errors.push_back(unauthorized);
        errors.push_back(http::error_doc(
            403,
            "not allowed: an untrusted peer without the token, a page of another origin, "
            "or (runs) a directory outside the allowed ones"));
    }
    if (method == "GET") errors.push_back(http::error_doc(416, "a malformed Range header"));
    return errors;
}

// The summary, and who may call the operation (the access policy's answer).
std::string operation_description(const http::RouteDoc& doc, const std::string& method,
                                  const std::string& pattern) {
    std::string access;
    if (needs_token(method, pattern, false)) {
        access =
            "Needs the bearer token when the agent has one; without one, a trusted peer "
            "(--trusted-peers) may call it.";
    } else if (needs_token(method, pattern, true)) {
        access = "Needs the bearer token only under --auth-reads.";
    } else {
        access = "Never needs the token.";
    }
    std::string summary = doc.summary;
    if (!summary.empty()) summary[0] = static_cast<char>(std::toupper(summary[0]));
    return summary + ". " + access;
}

json operation_object(const http::Router::RouteInfo& route) {
    const http::RouteDoc& doc = route.doc;
    json parameters = path_parameters(route.pattern);
    for (const auto& query : doc.query) {
        parameters.push_back({{"name", query.name},
                              {"in", "query"},
                              {"required", false},
                              {"description", query.description},
                              {"schema", query.schema}});
    }
    const json security = security_for(route.method, route.pattern);
    json responses = json::object();
    std::vector<http::ResponseDoc> declared = doc.responses;
    if (declared.empty()) declared.push_back({200, doc.summary, {}, {}});
    for (const auto& response : declared)
        responses[std::to_string(response.status)] = response_object(response);
    for (const auto& error : errors_on_the_way_in(route.method, !security.empty())) {
        const std::string status = std::to_string(error.status);
        // A route's own reason for a status is one of them: the screen's may come first.
        if (!responses.contains(status)) {
            responses[status] = response_object(error);
        } else {
            auto& description = responses[status]["description"];
            description = description.get<std::string>() + "; or " + error.description;
        }
    }
    json object = {{"operationId", operation_id(route.method, route.pattern)},
                   {"summary", doc.summary},
                   {"description", operation_description(doc, route.method, route.pattern)},
                   {"responses", responses},
                   {"security", security}};
    if (!doc.tag.empty()) object["tags"] = json::array({doc.tag});
    if (!parameters.empty()) object["parameters"] = parameters;
    if (!doc.request_body.empty()) {
        object["requestBody"] = {
            {"required", true},
            {"description", doc.request_body_description},
            {"content",
             {{"application/json", {{"schema", {{"$ref", schema_ref(doc.request_body)}}}}}}}};
    }
    return object;
}

json component_headers() {
    auto header = [](const char* description, json schema) {
        return json{{"description", description}, {"schema", std::move(schema)}};
    };
    return {{"Location", header("where the run is: /v1/runs/{id}", {{"type", "string"}})},
            {"Retry-After", header("seconds to wait before asking again",
                                   {{"type", "integer"},
                                    {"format", "int64"},
                                    {"minimum", 0},
                                    {"maximum", std::numeric_limits<int64_t>::max()}})},
            {"WWW-Authenticate", header("the scheme to use: Bearer", {{"type", "string"}})},
            {"Allow", header("the methods the path has", {{"type", "string"}})}};
}

// Answers to requests no operation describes: an unknown path, or a method the path lacks. They
// are no component (no operation refers to them) but an extension of the document's own.
json responses_outside_operations() {
    json method_not_allowed =
        response_object(http::error_doc(405, "the path exists but not with this method"));
    method_not_allowed["headers"]["Allow"] = {{"$ref", "#/components/headers/Allow"}};
    return {{"NotFound", response_object(http::error_doc(404, "no such path"))},
            {"MethodNotAllowed", method_not_allowed},
            {"NotImplemented",
             response_object(http::error_doc(501, "a method no route has (TRACE, CONNECT)"))}};
}

json security_schemes() {
    return {{kBearerScheme,
             {{"type", "http"},
              {"scheme", "bearer"},
              {"description",
               "The agent's token (--token-file or HOSTPROBE_TOKEN). Requests that change state "
               "need it; without a configured token they are accepted from trusted peers only "
               "(--trusted-peers, loopback by default). Reads need it only under --auth-reads; "
               "GET /healthz never does."}}}};
}

// The operations' groups, in the order listed.
json document_tags() {
    return json::array(
        {{{"name", "host"}, {"description", "the host's facts, live use, health and metrics"}},
         {{"name", "runs"}, {"description", "the probes, and runs of them"}},
         {{"name", "page"}, {"description", "the page a browser gets at /"}},
         {{"name", "document"}, {"description", "this document"}}});
}

// Relative: the agent does not know the address it is reached at; this is where the document
// was read from.
json document_servers() {
    return json::array({{{"url", "/"},
                         {"description",
                          "this agent, where the document was read: local to its task, on "
                          "loopback or the task's own address (--listen)"},
                         {"x-internal", true}}});
}

const char* kOpenApiDescription =
    "The hostprobe agent: host facts, probes that measure the machine on request, their runs "
    "and Prometheus metrics. This document is made by the running agent from its routes and "
    "probes. A path no operation has answers 404 (x-answers-outside-operations/NotFound); a "
    "method a path lacks answers 405 with Allow (x-answers-outside-operations/MethodNotAllowed); "
    "HEAD is answered wherever GET is.";

}  // namespace

json openapi_document(const std::vector<http::Router::RouteInfo>& routes,
                      const runs::ProbeRegistry& registry) {
    json paths = json::object();
    for (const auto& route : routes)
        paths[openapi_path(route.pattern)][to_lower(route.method)] = operation_object(route);
    return {{"openapi", "3.1.0"},
            {"info",
             {{"title", "hostprobe"},
              {"version", kVersion},
              {"description", kOpenApiDescription},
              {"contact", {{"name", "hostprobe"}}}}},
            {"servers", document_servers()},
            {"tags", document_tags()},
            {"paths", paths},
            {"components",
             {{"schemas", component_schemas(registry)},
              {"headers", component_headers()},
              {"securitySchemes", security_schemes()}}},
            {"x-answers-outside-operations", responses_outside_operations()}};
}

void add_openapi_route(http::Router& router, const runs::ProbeRegistry& registry) {
    router.add(
        "GET", "/openapi.json",
        http::RouteDoc{
            .tag = "document",
            .summary = "this API as an OpenAPI 3.1 document",
            .responses = {{200, "the document", {{"application/json", "OpenApiDocument"}}, {}}}},
        [&router, &registry](const http::RouteRequest&) -> Result<http::Reply> {
            return http::Reply::json(openapi_document(router.routes(), registry));
        });
}

}  // namespace hostprobe::api
