#include "http/entity_tag.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace hostprobe::http {

namespace {

// etagc (RFC 9110 8.8.3): any visible byte but DQUOTE, and obs-text.
bool is_etag_byte(unsigned char c) {
    return c == 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80;
}

}  // namespace

bool if_none_match_hits(std::string_view if_none_match,
                        std::initializer_list<std::string_view> current) {
    std::string_view rest = trim(if_none_match);
    if (rest == "*") return true;
    for (size_t seen = 0; !rest.empty() && seen < kMaxEntityTags; ++seen) {
        if (rest.substr(0, 2) == "W/") rest.remove_prefix(2);
        if (rest.empty() || rest.front() != '"') return false;
        const size_t close = rest.find('"', 1);
        if (close == std::string_view::npos) return false;
        const std::string_view tag = rest.substr(0, close + 1);
        if (!std::all_of(tag.begin() + 1, tag.end() - 1,
                         [](char c) { return is_etag_byte(static_cast<unsigned char>(c)); }))
            return false;
        if (std::find(current.begin(), current.end(), tag) != current.end()) return true;
        rest = trim(rest.substr(close + 1));
        if (rest.empty()) return false;
        if (rest.front() != ',') return false;
        while (!rest.empty() &&
               (rest.front() == ',' || rest.front() == ' ' || rest.front() == '\t'))
            rest.remove_prefix(1);
    }
    return false;
}

}  // namespace hostprobe::http
