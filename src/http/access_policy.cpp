#include "http/access_policy.hpp"

#include <openssl/crypto.h>

#include "core/strings.hpp"

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

}  // namespace

bool equal_in_constant_time(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;  // the token's length is not the secret
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<AccessDenial> check_access(const AccessPolicy& policy, std::string_view method,
                                         std::string_view path, std::string_view peer_address,
                                         std::string_view authorization) {
    // Health checks come from ECS and load balancers, which hold no token. Only reads: any
    // other method must not let an unknown peer make us read its body.
    if (path == "/healthz" && is_read(method)) return std::nullopt;
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
    for (const auto& range : policy.trusted_peers) {
        if (range.contains(peer_address)) return std::nullopt;
    }
    return AccessDenial{403,
                        what + " is accepted only from trusted peers (--trusted-peers " +
                            policy.trusted_peers_text + "; " + std::string(peer_address) +
                            " is not one), or with a token (--token-file)",
                        std::nullopt};
}

}  // namespace hostprobe::http
