#include "cli/healthcheck.hpp"

#include <httplib.h>

#include <cmath>

#include "core/strings.hpp"
#include "http/listen_address.hpp"

namespace hostprobe::cli {

Result<HttpUrl> parse_http_url(const std::string& url) {
    HttpUrl parsed;
    const size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) {
        return make_error(ErrorCode::invalid_argument,
                          "URL '" + url + "' needs a scheme, e.g. http://127.0.0.1:9740/healthz");
    }
    parsed.scheme = to_lower(url.substr(0, scheme_end));
    if (parsed.scheme != "http" && parsed.scheme != "https") {
        return make_error(ErrorCode::invalid_argument,
                          "URL scheme must be http or https: '" + url + "'");
    }
    const std::string rest = url.substr(scheme_end + 3);
    const size_t path_start = rest.find('/');
    const std::string authority = rest.substr(0, path_start);
    parsed.path = path_start == std::string::npos ? "/" : rest.substr(path_start);
    parsed.port = parsed.scheme == "https" ? 443 : 80;
    std::string host = authority;
    const size_t bracket = authority.find(']');
    const size_t colon = authority.rfind(':');
    if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
        auto port = parse_uint64(authority.substr(colon + 1));
        if (!port || *port == 0 || *port > 65535) {
            return make_error(ErrorCode::invalid_argument, "bad port in URL '" + url + "'");
        }
        parsed.port = static_cast<int>(*port);
        host = authority.substr(0, colon);
    }
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty())
        return make_error(ErrorCode::invalid_argument, "URL '" + url + "' has no host");
    parsed.host = host;
    return parsed;
}

std::string default_healthcheck_url(const EnvironmentLookup& environment) {
    int port = 9740;
    if (auto listen = environment("HOSTPROBE_LISTEN")) {
        if (auto address = http::parse_listen_address(*listen); address && address->port != 0) {
            port = address->port;
        }
    }
    return "http://127.0.0.1:" + std::to_string(port) + "/healthz";
}

Status check_health(const HttpUrl& url, double timeout_seconds) {
    const std::string base =
        url.scheme + "://" +
        (url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host) + ":" +
        std::to_string(url.port);
    httplib::Client client(base);
    const auto seconds = static_cast<time_t>(timeout_seconds);
    const auto micros = static_cast<time_t>((timeout_seconds - std::floor(timeout_seconds)) * 1e6);
    client.set_connection_timeout(seconds, micros);
    client.set_read_timeout(seconds, micros);
    client.set_write_timeout(seconds, micros);
    auto response = client.Get(url.path);
    if (!response) {
        return make_error(ErrorCode::unavailable,
                          base + url.path + ": " + httplib::to_string(response.error()));
    }
    if (response->status != 200) {
        return make_error(ErrorCode::unavailable,
                          base + url.path + " answered HTTP " + std::to_string(response->status));
    }
    return Ok{};
}

}  // namespace hostprobe::cli
