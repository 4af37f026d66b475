// Who may do what over HTTP. With a token, mutating requests (and, with protect_reads, every
// request but /healthz) need "Authorization: Bearer <token>"; without one, they are accepted
// only from trusted peers: in awsvpc mode the containers of one task share localhost, so
// loopback is the task itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/cidr.hpp"

namespace hostprobe::http {

inline constexpr std::string_view kLoopbackPeers = "127.0.0.0/8,::1";

struct AccessPolicy {
    std::string token;  // empty: no token, trusted peers decide
    std::vector<Cidr> trusted_peers = *parse_cidr_list(kLoopbackPeers);
    std::string trusted_peers_text = std::string(kLoopbackPeers);  // as configured, for messages
    bool protect_reads = false;  // --auth-reads: GET endpoints and /metrics too
};

struct AccessDenial {
    int status = 403;  // 401 (token missing or wrong) or 403 (untrusted peer)
    std::string message;
    std::optional<std::string> www_authenticate;  // for 401
};

std::optional<AccessDenial> check_access(const AccessPolicy& policy, std::string_view method,
                                         std::string_view path, std::string_view peer_address,
                                         std::string_view authorization);

// Compares without an early exit, so response timing does not leak how much of a guess matched.
bool equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace hostprobe::http
