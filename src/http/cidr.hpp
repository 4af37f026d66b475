// Address ranges for --trusted-peers: "127.0.0.0/8", "::1", "10.0.0.0/16". An IPv4 peer seen
// through an IPv6 socket (::ffff:127.0.0.1) matches the IPv4 ranges.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::http {

struct Cidr {
    bool ipv6 = false;
    std::array<uint8_t, 16> address{};  // IPv4 uses the first 4 bytes
    int prefix_bits = 0;

    bool contains(std::string_view peer_address) const;
    std::string to_string() const;
};

// A bare address is a range of one (/32 or /128).
Result<Cidr> parse_cidr(std::string_view text);
// Comma separated; empty items are skipped, so "" trusts nobody.
Result<std::vector<Cidr>> parse_cidr_list(std::string_view text);

}  // namespace hostprobe::http
