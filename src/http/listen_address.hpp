// "HOST:PORT" as given to --listen: "0.0.0.0:9740", "127.0.0.1:0", "[::1]:9740", ":9740".
#pragma once

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace hostprobe::http {

struct ListenAddress {
    std::string host;
    int port = 0;  // 0 asks the kernel for a free port
    std::string to_string() const;
};

Result<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace hostprobe::http
