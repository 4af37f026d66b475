// `hostprobe healthcheck`: exit 0 when a daemon answers /healthz with 200, for container
// health checks in an image without curl.
#pragma once

#include <string>

#include "cli/options.hpp"
#include "core/result.hpp"
#include "http/url.hpp"

namespace hostprobe::cli {

using http::HttpUrl;
using http::parse_http_url;

// Where the local daemon listens, from HOSTPROBE_LISTEN when set (so a task definition that
// moves the port needs no second setting).
std::string default_healthcheck_url(const EnvironmentLookup& environment);

Status check_health(const HttpUrl& url, double timeout_seconds);

}  // namespace hostprobe::cli
