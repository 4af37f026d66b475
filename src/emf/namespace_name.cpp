#include "emf/namespace_name.hpp"

#include <algorithm>

namespace hostprobe::emf {

namespace {

bool is_namespace_character(char c) {
    const bool alphanumeric =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return alphanumeric || std::string_view(".-_/#: ").find(c) != std::string_view::npos;
}

}  // namespace

Result<std::string> parse_namespace(std::string_view text) {
    if (text.empty() || text.size() > kMaxNamespaceLength)
        return make_error(ErrorCode::invalid_argument, "the namespace must be 1 to " +
                                                           std::to_string(kMaxNamespaceLength) +
                                                           " characters long");
    if (!std::all_of(text.begin(), text.end(), is_namespace_character))
        return make_error(ErrorCode::invalid_argument,
                          "the namespace may hold only letters, digits, spaces and . - _ / # :");
    if (text.find_first_not_of(' ') == std::string_view::npos)
        return make_error(ErrorCode::invalid_argument, "the namespace cannot be only spaces");
    if (text.substr(0, 4) == "AWS/")
        return make_error(ErrorCode::invalid_argument,
                          "namespaces starting with AWS/ are reserved for AWS services");
    return std::string(text);
}

}  // namespace hostprobe::emf
