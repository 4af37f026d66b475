#include "http/router.hpp"

#include <httplib.h>

#include <algorithm>
#include <exception>

#include "core/strings.hpp"

namespace hostprobe::http {

namespace {

std::vector<std::string> path_segments(const std::string& path) {
    std::vector<std::string> segments;
    for (std::string_view part : split(path, '/')) {
        if (!part.empty()) segments.emplace_back(part);
    }
    return segments;
}

// "{name...}"
bool is_rest_capture(const std::string& segment) {
    return segment.size() > 5 && segment.front() == '{' && segment.ends_with("...}");
}

}  // namespace

void Router::add(std::string method, std::string pattern, RouteDoc doc, RouteHandler handler) {
    std::vector<std::string> segments = path_segments(pattern);
    std::string description = doc.summary;
    routes_.push_back(Route{
        RouteInfo{std::move(method), std::move(pattern), std::move(description), std::move(doc)},
        std::move(segments), std::move(handler)});
}

void Router::add(std::string method, std::string pattern, std::string description,
                 RouteHandler handler) {
    add(std::move(method), std::move(pattern), RouteDoc{.summary = std::move(description)},
        std::move(handler));
}

std::vector<Router::RouteInfo> Router::routes() const {
    std::vector<RouteInfo> infos;
    for (const Route& route : routes_)
        infos.push_back(route.info);
    return infos;
}

bool Router::match(const Route& route, const std::vector<std::string>& segments,
                   std::map<std::string, std::string>& params) {
    const bool takes_rest = !route.segments.empty() && is_rest_capture(route.segments.back());
    if (takes_rest ? segments.size() < route.segments.size()
                   : segments.size() != route.segments.size())
        return false;
    std::map<std::string, std::string> captured;
    for (size_t i = 0; i < route.segments.size(); ++i) {
        const std::string& expected = route.segments[i];
        if (takes_rest && i + 1 == route.segments.size()) {
            std::vector<std::string> rest(segments.begin() + static_cast<std::ptrdiff_t>(i),
                                          segments.end());
            captured[expected.substr(1, expected.size() - 5)] = join(rest, "/");
        } else if (expected.size() > 2 && expected.front() == '{' && expected.back() == '}') {
            captured[expected.substr(1, expected.size() - 2)] = segments[i];
        } else if (expected != segments[i]) {
            return false;
        }
    }
    params = std::move(captured);
    return true;
}

Reply Router::dispatch(const httplib::Request& request) const {
    const std::vector<std::string> segments = path_segments(request.path);
    // HEAD is answered by the GET handler; cpp-httplib drops the body.
    const std::string method = request.method == "HEAD" ? "GET" : request.method;
    std::vector<std::string> allowed;
    for (const Route& route : routes_) {
        std::map<std::string, std::string> params;
        if (!match(route, segments, params)) continue;
        if (route.info.method != method) {
            allowed.push_back(route.info.method);
            continue;
        }
        try {
            Result<Reply> reply = route.handler(RouteRequest{request, std::move(params)});
            return reply ? std::move(reply).value() : error_reply(reply.error());
        } catch (const std::exception& error) {
            return error_reply(500, std::string("internal error: ") + error.what());
        } catch (...) {
            return error_reply(500, "internal error");
        }
    }
    if (allowed.empty()) {
        return error_reply(404, "no such endpoint: " + request.path + " (see GET /)");
    }
    if (std::find(allowed.begin(), allowed.end(), "GET") != allowed.end()) {
        allowed.push_back("HEAD");
    }
    Reply reply = error_reply(405, "method " + request.method + " is not allowed on " +
                                       request.path + "; allowed: " + join(allowed, ", "));
    reply.headers.emplace_back("Allow", join(allowed, ", "));
    return reply;
}

Result<AnswerFormat> answer_format(const RouteRequest& request) {
    if (!request.http.has_param("format")) return AnswerFormat::json;
    const std::string format = request.http.get_param_value("format");
    if (format == "json") return AnswerFormat::json;
    if (format == "text") return AnswerFormat::text;
    return make_error(ErrorCode::invalid_argument,
                      "format must be json or text, not '" + format + "'");
}

}  // namespace hostprobe::http
