#include "cli/healthcheck.hpp"

#include <httplib.h>

#include <cmath>

#include "core/strings.hpp"
#include "http/listen_address.hpp"

namespace hostprobe::cli {

std::string default_healthcheck_url(const EnvironmentLookup& environment) {
    int port = 9740;
    if (auto listen = environment("HOSTPROBE_LISTEN")) {
        if (auto address = http::parse_listen_address(*listen); address && address->port != 0) {
            port = address->port;
        }
    }
    // An agent serving TLS (HOSTPROBE_TLS_CERT set in the same container) is checked over TLS.
    const auto cert = environment("HOSTPROBE_TLS_CERT");
    const std::string scheme = cert && !cert->empty() ? "https" : "http";
    return scheme + "://127.0.0.1:" + std::to_string(port) + "/healthz";
}

namespace {

// cpp-httplib names its errors in one word ("Connection"); say what it means for an agent.
std::string describe(httplib::Error error, double timeout_seconds) {
    switch (error) {
        case httplib::Error::Connection:
            return "cannot connect: no agent is listening there (or it is not up yet)";
        case httplib::Error::ConnectionTimeout:
        case httplib::Error::Read:
            return "no answer within " + format_fixed(timeout_seconds, 1) + " s";
        default: return httplib::to_string(error);
    }
}

}  // namespace

Status check_health(const HttpUrl& url, double timeout_seconds) {
    const std::string base = url.origin();
    httplib::Client client(base);
    // A liveness check of our own agent: its certificate is usually self-signed or names
    // the service rather than 127.0.0.1, and nothing secret is exchanged.
    client.enable_server_certificate_verification(false);
    const auto seconds = static_cast<time_t>(timeout_seconds);
    const auto micros = static_cast<time_t>((timeout_seconds - std::floor(timeout_seconds)) * 1e6);
    client.set_connection_timeout(seconds, micros);
    client.set_read_timeout(seconds, micros);
    client.set_write_timeout(seconds, micros);
    auto response = client.Get(url.path);
    if (!response) {
        return make_error(ErrorCode::unavailable,
                          base + url.path + ": " + describe(response.error(), timeout_seconds));
    }
    if (response->status != 200) {
        return make_error(ErrorCode::unavailable,
                          base + url.path + " answered HTTP " + std::to_string(response->status));
    }
    return Ok{};
}

}  // namespace hostprobe::cli
