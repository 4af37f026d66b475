#include "http/url.hpp"

#include "core/strings.hpp"

namespace hostprobe::http {

std::string HttpUrl::origin() const {
    return scheme + "://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port);
}

Result<HttpUrl> parse_http_url(const std::string& url) {
    HttpUrl parsed;
    const size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) {
        return make_error(ErrorCode::invalid_argument,
                          "URL '" + url + "' needs a scheme, e.g. http://127.0.0.1:9740/healthz");
    }
    parsed.scheme = to_lower(url.substr(0, scheme_end));
    if (parsed.scheme != "http" && parsed.scheme != "https") {
        return make_error(ErrorCode::invalid_argument,
                          "URL scheme must be http or https: '" + url + "'");
    }
    const std::string rest = url.substr(scheme_end + 3);
    const size_t path_start = rest.find('/');
    const std::string authority = rest.substr(0, path_start);
    parsed.path = path_start == std::string::npos ? "/" : rest.substr(path_start);
    parsed.port = parsed.scheme == "https" ? 443 : 80;
    std::string host = authority;
    const size_t bracket = authority.find(']');
    const size_t colon = authority.rfind(':');
    if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
        auto port = parse_uint64(authority.substr(colon + 1));
        if (!port || *port == 0 || *port > 65535) {
            return make_error(ErrorCode::invalid_argument, "bad port in URL '" + url + "'");
        }
        parsed.port = static_cast<int>(*port);
        host = authority.substr(0, colon);
    }
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty())
        return make_error(ErrorCode::invalid_argument, "URL '" + url + "' has no host");
    parsed.host = host;
    return parsed;
}

}  // namespace hostprobe::http
