// Method + path routing with the answers a REST client expects: 404 for an unknown path, 405
// with an Allow header for a known path and the wrong method. Paths may hold "{name}" segments,
// and end in "{name...}", which takes one or more segments, joined by '/' ("/ui/{asset...}").
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "http/reply.hpp"
#include "http/route_doc.hpp"

namespace httplib {
struct Request;
}

namespace hostprobe::http {

struct RouteRequest {
    const httplib::Request& http;
    std::map<std::string, std::string> path_params;
};

using RouteHandler = std::function<Result<Reply>(const RouteRequest&)>;

// ?format=json|text, json when absent; anything else is an invalid_argument that names it.
enum class AnswerFormat { json, text };
Result<AnswerFormat> answer_format(const RouteRequest& request);

class Router {
  public:
    struct RouteInfo {
        std::string method;
        std::string pattern;
        std::string description;  // doc.summary
        RouteDoc doc;             // for GET /openapi.json
    };

    void add(std::string method, std::string pattern, RouteDoc doc, RouteHandler handler);
    // A route documented by its summary alone.
    void add(std::string method, std::string pattern, std::string description,
             RouteHandler handler);
    // For the index at GET / and the OpenAPI document.
    std::vector<RouteInfo> routes() const;

    // Never throws: an exception from a handler becomes a 500 JSON error.
    Reply dispatch(const httplib::Request& request) const;

  private:
    struct Route {
        RouteInfo info;
        std::vector<std::string> segments;
        RouteHandler handler;
    };
    static bool match(const Route& route, const std::vector<std::string>& segments,
                      std::map<std::string, std::string>& params);

    std::vector<Route> routes_;
};

}  // namespace hostprobe::http
