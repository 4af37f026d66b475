// Who may do what over HTTP. With a token, mutating requests (and, with protect_reads, every
// request but /healthz and the page) need "Authorization: Bearer <token>"; without one, they are
// accepted only from trusted peers: in awsvpc mode the containers of one task share localhost, so
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
    // --allowed-hosts: names (lower case, no port) that may be trusted by peer address like
    // an IP literal or localhost (see host_may_vouch_for_peer).
    std::vector<std::string> allowed_hosts;
};

struct AccessDenial {
    int status = 403;  // 401 (token missing or wrong) or 403 (untrusted peer)
    std::string message;
    std::optional<std::string> www_authenticate;  // for 401
};

// `host` is the request's Host header ("" when it has none, as HTTP/1.0 allows), `accept` its
// Accept header (which decides whether GET / asks for the page).
std::optional<AccessDenial> check_access(const AccessPolicy& policy, std::string_view method,
                                         std::string_view path, std::string_view peer_address,
                                         std::string_view authorization, std::string_view host = {},
                                         std::string_view accept = {});

// The page (issue 18): GET or HEAD of / by a client that prefers HTML, or of anything under
// /ui/. Served to anyone, even with --auth-reads or a token: it holds no data (the same files
// as the repository's src/ui, compiled in), a browser cannot attach a bearer token to a
// navigation, and the page asks for the token itself and sends it with each request for data.
// Every data endpoint keeps its protection, and the DNS-rebinding and Origin rules still
// guard them: a rebinding page can fetch the public page, nothing more.
bool is_public_page(std::string_view method, std::string_view path, std::string_view accept);

// DNS rebinding: a web page from evil.example whose name then resolves to 127.0.0.1 makes the
// browser send its requests from a loopback peer, with "Host: evil.example:9740". Trust that
// comes from the peer's address is therefore given only when Host names the agent by an IP
// literal, localhost, or an --allowed-hosts name; any other name must show the token.
bool host_may_vouch_for_peer(const AccessPolicy& policy, std::string_view host);

// Cross-site requests: a mutating request that carries an Origin (browsers add it) must come
// from the agent's own origin, whatever else it carries. Reads are not checked: a browser
// does not let a foreign page read our answers without CORS headers, which we never send.
std::optional<AccessDenial> check_origin(std::string_view method, std::string_view host,
                                         std::string_view origin);

// Fetch metadata (Sec-Fetch-Site, which browsers add to every request): a mutating request a
// browser marks as coming from another site, or from another origin of the same site (another
// port of localhost, a sibling subdomain), is refused, token or not; the agent is its own
// origin. "same-origin" (the page itself) and "none" (the user's own action) pass, as does a
// request without the header (curl, scripts, older browsers, whose Origin check_origin judges).
// Any other value is refused too: a browser sends only those four.
std::optional<AccessDenial> check_fetch_site(std::string_view method,
                                             std::string_view sec_fetch_site);

// Compares without an early exit, so response timing does not leak how much of a guess matched.
bool equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace hostprobe::http
