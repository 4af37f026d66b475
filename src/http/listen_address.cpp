#include "http/listen_address.hpp"

#include "core/strings.hpp"

namespace hostprobe::http {

std::string ListenAddress::to_string() const {
    const bool ipv6 = host.find(':') != std::string::npos;
    return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
    const std::string original(text);
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        return make_error(ErrorCode::invalid_argument,
                          "listen address '" + original + "' must be HOST:PORT, e.g. 0.0.0.0:9740");
    }
    std::string_view host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string_view::npos) {
        return make_error(ErrorCode::invalid_argument,
                          "IPv6 listen address '" + original + "' needs brackets: [::1]:9740");
    }
    auto port = parse_uint64(text.substr(colon + 1));
    if (!port || *port > 65535) {
        return make_error(ErrorCode::invalid_argument,
                          "listen port in '" + original + "' must be a number from 0 to 65535");
    }
    ListenAddress address;
    address.host = host.empty() ? "0.0.0.0" : std::string(host);
    address.port = static_cast<int>(*port);
    return address;
}

}  // namespace hostprobe::http
