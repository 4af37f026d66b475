#include "core/result.hpp"

namespace hostprobe {

const char* to_string(ErrorCode code) {
    switch (code) {
        case ErrorCode::not_found: return "not_found";
        case ErrorCode::invalid_argument: return "invalid_argument";
        case ErrorCode::parse_error: return "parse_error";
        case ErrorCode::io_error: return "io_error";
        case ErrorCode::unavailable: return "unavailable";
        case ErrorCode::conflict: return "conflict";
        case ErrorCode::busy: return "busy";
        case ErrorCode::too_large: return "too_large";
        case ErrorCode::unsupported_type: return "unsupported_type";
        case ErrorCode::forbidden: return "forbidden";
        case ErrorCode::internal: return "internal";
    }
    return "internal";
}

}  // namespace hostprobe
