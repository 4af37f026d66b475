#include "http/access_policy.hpp"

#include <arpa/inet.h>
#include <openssl/crypto.h>

#include "core/strings.hpp"
#include "http/negotiation.hpp"

namespace hostprobe::http {

namespace {

bool is_read(std::string_view method) {
    return method == "GET" || method == "HEAD" || method == "OPTIONS";
}

// "Bearer <token>", the scheme case-insensitive (RFC 7235 2.1).
std::optional<std::string_view> bearer_token(std::string_view authorization) {
    constexpr std::string_view scheme = "bearer ";
    if (authorization.size() <= scheme.size()) return std::nullopt;
    if (to_lower(std::string(authorization.substr(0, scheme.size()))) != scheme)
        return std::nullopt;
    return trim(authorization.substr(scheme.size()));
}

struct Authority {
    std::string host;  // lower case, IPv6 without brackets
    std::string port;  // "" when not given
};

// "host:port", "[v6]:port", "host" or "[v6]".
Authority split_authority(std::string_view text) {
    text = trim(text);
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string_view::npos) return {to_lower(text), ""};
        const std::string_view rest = text.substr(close + 1);
        return {to_lower(text.substr(1, close - 1)),
                rest.size() > 1 && rest.front() == ':' ? std::string(rest.substr(1)) : ""};
    }
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) return {to_lower(text), ""};
    return {to_lower(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

bool is_ip_literal(const std::string& host) {
    unsigned char address[16];
    return inet_pton(AF_INET, host.c_str(), address) == 1 ||
           inet_pton(AF_INET6, host.c_str(), address) == 1;
}

bool is_localhost(std::string_view host) {
    constexpr std::string_view suffix = ".localhost";  // RFC 6761: always loopback
    return host == "localhost" ||
           (host.size() > suffix.size() && host.substr(host.size() - suffix.size()) == suffix);
}

}  // namespace

bool host_may_vouch_for_peer(const AccessPolicy& policy, std::string_view host) {
    if (trim(host).empty()) return true;  // HTTP/1.0 without Host: no browser sends that
    const std::string name = split_authority(host).host;
    if (is_ip_literal(name) || is_localhost(name)) return true;
    for (const std::string& allowed : policy.allowed_hosts) {
        if (allowed == name) return true;
    }
    return false;
}

std::optional<AccessDenial> check_origin(std::string_view method, std::string_view host,
                                         std::string_view origin) {
    if (is_read(method) || origin.empty()) return std::nullopt;
    const size_t separator = origin.find("://");
    if (separator != std::string_view::npos) {
        const std::string scheme = to_lower(trim(origin.substr(0, separator)));
        const std::string default_port = scheme == "https" ? "443" : "80";
        Authority from = split_authority(origin.substr(separator + 3));
        Authority to = split_authority(host);
        if (from.port.empty()) from.port = default_port;
        // Host omits the port exactly when the browser used the scheme's default one.
        if (to.port.empty()) to.port = default_port;
        if (!from.host.empty() && from.host == to.host && from.port == to.port) return std::nullopt;
    }
    return AccessDenial{403,
                        std::string(method) + " from a page of another origin (Origin " +
                            std::string(origin) + ", Host " + std::string(host) + ") is refused",
                        std::nullopt};
}

std::optional<AccessDenial> check_fetch_site(std::string_view method,
                                             std::string_view sec_fetch_site) {
    const std::string site = to_lower(trim(sec_fetch_site));
    if (is_read(method) || site.empty() || site == "same-origin" || site == "none")
        return std::nullopt;
    return AccessDenial{403,
                        std::string(method) + " marked Sec-Fetch-Site: " + excerpt(sec_fetch_site) +
                            " (a page of another origin) is refused",
                        std::nullopt};
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;  // the token's length is not the secret
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool is_public_page(std::string_view method, std::string_view path, std::string_view accept) {
    if (method != "GET" && method != "HEAD") return false;
    // Only the router's "/ui/{asset...}" route starts with this segment; it answers with an
    // embedded file or 404, whatever follows ("/ui/../v1/host" is no embedded name).
    constexpr std::string_view assets = "/ui/";
    return path.substr(0, assets.size()) == assets || (path == "/" && prefers_html(accept));
}

std::optional<AccessDenial> check_access(const AccessPolicy& policy, std::string_view method,
                                         std::string_view path, std::string_view peer_address,
                                         std::string_view authorization, std::string_view host,
                                         std::string_view accept) {
    // Health checks come from ECS and load balancers, which hold no token. Only reads: any
    // other method must not let an unknown peer make us read its body.
    if (path == "/healthz" && is_read(method)) return std::nullopt;
    if (is_public_page(method, path, accept)) return std::nullopt;
    if (is_read(method) && !policy.protect_reads) return std::nullopt;
    const std::string what = std::string(method) + " " + std::string(path);
    if (!policy.token.empty()) {
        if (authorization.empty()) {
            return AccessDenial{401, what + " needs Authorization: Bearer <token>",
                                "Bearer realm=\"hostprobe\""};
        }
        auto offered = bearer_token(authorization);
        if (!offered || !equal_in_constant_time(*offered, policy.token)) {
            return AccessDenial{401, "the bearer token is not valid",
                                "Bearer realm=\"hostprobe\", error=\"invalid_token\""};
        }
        return std::nullopt;
    }
    const bool vouched = host_may_vouch_for_peer(policy, host);
    for (const auto& range : policy.trusted_peers) {
        if (vouched && range.contains(peer_address)) return std::nullopt;
    }
    if (!vouched) {
        return AccessDenial{403,
                            what + " names the agent as '" + excerpt(host) +
                                "': a trusted peer must use an IP address, localhost or an "
                                "--allowed-hosts name (a guard against DNS rebinding), or "
                                "send the token (--token-file)",
                            std::nullopt};
    }
    return AccessDenial{403,
                        what + " is accepted only from trusted peers (--trusted-peers " +
                            policy.trusted_peers_text + "; " + std::string(peer_address) +
                            " is not one), or with a token (--token-file)",
                        std::nullopt};
}

}  // namespace hostprobe::http
