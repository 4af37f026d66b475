// Plain http(s) URLs as hostprobe's own clients use them (health checks, ECS metadata).
#pragma once

#include <string>

#include "core/result.hpp"

namespace hostprobe::http {

struct HttpUrl {
    std::string scheme;
    std::string host;
    int port = 0;
    std::string path;
    // "http://host:port", brackets around an IPv6 host.
    std::string origin() const;
};

Result<HttpUrl> parse_http_url(const std::string& url);

}  // namespace hostprobe::http
