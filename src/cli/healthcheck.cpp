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
    return "http://127.0.0.1:" + std::to_string(port) + "/healthz";
}

Status check_health(const HttpUrl& url, double timeout_seconds) {
    const std::string base = url.origin();
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
