#include "http/cidr.hpp"

#include <arpa/inet.h>

#include <cstring>

#include "core/strings.hpp"

namespace hostprobe::http {

namespace {

struct Address {
    bool ipv6 = false;
    std::array<uint8_t, 16> bytes{};
};

bool parse_address(const std::string& text, Address& out) {
    if (inet_pton(AF_INET, text.c_str(), out.bytes.data()) == 1) {
        out.ipv6 = false;
        return true;
    }
    if (inet_pton(AF_INET6, text.c_str(), out.bytes.data()) != 1) return false;
    out.ipv6 = true;
    // ::ffff:a.b.c.d is the IPv4 peer of a dual-stack socket.
    static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(out.bytes.data(), kMappedPrefix, sizeof kMappedPrefix) == 0) {
        std::memmove(out.bytes.data(), out.bytes.data() + 12, 4);
        std::memset(out.bytes.data() + 4, 0, 12);
        out.ipv6 = false;
    }
    return true;
}

}  // namespace

bool Cidr::contains(std::string_view peer_address) const {
    Address peer;
    if (!parse_address(std::string(peer_address), peer) || peer.ipv6 != ipv6) return false;
    const int whole_bytes = prefix_bits / 8;
    if (std::memcmp(peer.bytes.data(), address.data(), static_cast<size_t>(whole_bytes)) != 0)
        return false;
    const int rest = prefix_bits % 8;
    if (rest == 0) return true;
    const auto mask = static_cast<uint8_t>(0xff << (8 - rest));
    return (peer.bytes[static_cast<size_t>(whole_bytes)] & mask) ==
           (address[static_cast<size_t>(whole_bytes)] & mask);
}

std::string Cidr::to_string() const {
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(ipv6 ? AF_INET6 : AF_INET, address.data(), text, sizeof text);
    return std::string(text) + "/" + std::to_string(prefix_bits);
}

Result<Cidr> parse_cidr(std::string_view text) {
    const std::string item(trim(text));
    const auto slash = item.find('/');
    Address parsed;
    if (!parse_address(item.substr(0, slash), parsed)) {
        return make_error(ErrorCode::invalid_argument,
                          "'" + item + "' is not an IP address or CIDR range");
    }
    Cidr cidr;
    cidr.ipv6 = parsed.ipv6;
    cidr.address = parsed.bytes;
    const int max_bits = cidr.ipv6 ? 128 : 32;
    cidr.prefix_bits = max_bits;
    if (slash != std::string::npos) {
        auto bits = parse_uint64(std::string_view(item).substr(slash + 1));
        if (!bits || *bits > static_cast<uint64_t>(max_bits)) {
            return make_error(
                ErrorCode::invalid_argument,
                "'" + item + "': the prefix length must be 0 to " + std::to_string(max_bits));
        }
        cidr.prefix_bits = static_cast<int>(*bits);
    }
    return cidr;
}

Result<std::vector<Cidr>> parse_cidr_list(std::string_view text) {
    std::vector<Cidr> ranges;
    for (const auto item : split(text, ',')) {
        if (trim(item).empty()) continue;
        auto cidr = parse_cidr(item);
        if (!cidr) return cidr.error();
        ranges.push_back(*cidr);
    }
    return ranges;
}

}  // namespace hostprobe::http
