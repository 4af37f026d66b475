// GET /openapi.json: an OpenAPI 3.1 document made at request time from the routes as registered
// (each with its RouteDoc), the probes' parameter tables and result structs, and the access
// policy's rules. Nothing in it is written by hand twice, so it cannot drift from the code.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "http/router.hpp"
#include "runs/probe.hpp"

namespace hostprobe::api {

nlohmann::json openapi_document(const std::vector<http::Router::RouteInfo>& routes,
                                const runs::ProbeRegistry& registry);

// Serves the document of every route of `router` at the time of the request, this one included.
// The registry must outlive the router.
void add_openapi_route(http::Router& router, const runs::ProbeRegistry& registry);

}  // namespace hostprobe::api
