#include "http/negotiation.hpp"

#include <optional>
#include <string>
#include <vector>

#include "core/strings.hpp"

namespace hostprobe::http {

namespace {

// Splits on `separator` outside double quotes (a parameter's quoted value may hold it).
// Nothing when there are more than `limit` parts.
std::optional<std::vector<std::string_view>> split_unquoted(std::string_view text, char separator,
                                                            size_t limit) {
    std::vector<std::string_view> parts;
    bool quoted = false;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size()) {
            const char c = text[i];
            if (c == '"') quoted = !quoted;
            if (c == '\\' && quoted && i + 1 < text.size()) ++i;  // quoted-pair
            if (quoted || c != separator) continue;
        }
        if (parts.size() == limit) return std::nullopt;
        parts.push_back(trim(text.substr(start, std::min(i, text.size()) - start)));
        start = i + 1;
    }
    return parts;
}

// "0", "0.", "0.5", "0.125", "1", "1.", "1.000" (RFC 9110 12.4.2); anything else is invalid.
std::optional<Quality> parse_quality(std::string_view text) {
    if (text.empty() || text.size() > 5 || (text[0] != '0' && text[0] != '1')) return std::nullopt;
    if (text.size() > 1 && text[1] != '.') return std::nullopt;
    Quality thousandths = (text[0] - '0') * kFullQuality;
    Quality scale = 100;
    for (size_t i = 2; i < text.size(); ++i, scale /= 10) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        thousandths += (text[i] - '0') * scale;
    }
    if (thousandths > kFullQuality) return std::nullopt;
    return thousandths;
}

struct Weighted {
    std::string value;  // the element before its parameters, lower case
    Quality quality = kFullQuality;
};

// One list element, "value;param=x;q=0.5"; nothing when its q is malformed.
std::optional<Weighted> parse_element(std::string_view element) {
    auto pieces = split_unquoted(element, ';', kMaxNegotiationElements);
    if (!pieces || pieces->empty()) return std::nullopt;
    Weighted weighted{to_lower((*pieces)[0]), kFullQuality};
    for (size_t i = 1; i < pieces->size(); ++i) {
        const std::string_view parameter = (*pieces)[i];
        const size_t equals = parameter.find('=');
        if (equals == std::string_view::npos) continue;
        if (to_lower(trim(parameter.substr(0, equals))) != "q") continue;
        auto quality = parse_quality(trim(parameter.substr(equals + 1)));
        if (!quality) return std::nullopt;
        weighted.quality = *quality;
        break;  // parameters after q belong to Accept's extensions (RFC 2616), ignored
    }
    return weighted;
}

// Every well-formed element of a header; nothing when the header is over the bound.
std::optional<std::vector<Weighted>> parse_list(std::string_view header) {
    auto elements = split_unquoted(header, ',', kMaxNegotiationElements);
    if (!elements) return std::nullopt;
    std::vector<Weighted> parsed;
    for (std::string_view element : *elements) {
        if (element.empty()) continue;  // RFC 9110 5.6.1: empty list elements are allowed
        if (auto weighted = parse_element(element)) parsed.push_back(std::move(*weighted));
    }
    return parsed;
}

// How specifically `range` covers `type`/`subtype`: 2 exactly, 1 by "type/*", 0 by "*/*";
// nothing when it does not (or is no media range).
std::optional<int> range_specificity(std::string_view range, std::string_view type,
                                     std::string_view subtype) {
    const size_t slash = range.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const std::string_view range_type = trim(range.substr(0, slash));
    const std::string_view range_subtype = trim(range.substr(slash + 1));
    if (range_type == "*" && range_subtype == "*") return 0;
    if (range_type != type) return std::nullopt;
    if (range_subtype == "*") return 1;
    if (range_subtype == subtype) return 2;
    return std::nullopt;
}

}  // namespace

Quality media_quality(std::string_view accept, std::string_view media_type) {
    if (trim(accept).empty()) return kFullQuality;
    auto ranges = parse_list(accept);
    if (!ranges) return kFullQuality;
    const std::string wanted = to_lower(media_type);
    const size_t slash = wanted.find('/');
    const std::string_view type = std::string_view(wanted).substr(0, slash);
    const std::string_view subtype = slash == std::string::npos
                                         ? std::string_view()
                                         : std::string_view(wanted).substr(slash + 1);
    int best_specificity = -1;
    Quality quality = 0;
    for (const Weighted& range : *ranges) {
        auto specificity = range_specificity(range.value, type, subtype);
        if (specificity && *specificity > best_specificity) {
            best_specificity = *specificity;
            quality = range.quality;
        }
    }
    return quality;
}

bool prefers_html(std::string_view accept) {
    const Quality html = media_quality(accept, "text/html");
    return html > 0 && html > media_quality(accept, "application/json");
}

bool accepts_gzip(std::string_view accept_encoding) {
    auto codings = parse_list(accept_encoding);
    if (!codings) return false;
    std::optional<Quality> named;
    std::optional<Quality> any;
    for (const Weighted& coding : *codings) {
        if (coding.value == "gzip" || coding.value == "x-gzip") named = coding.quality;
        if (coding.value == "*") any = coding.quality;
    }
    if (named) return *named > 0;
    return any && *any > 0;
}

}  // namespace hostprobe::http
