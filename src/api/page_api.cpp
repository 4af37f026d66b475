#include "api/page_api.hpp"

#include <httplib.h>

#include <string>

#include "core/strings.hpp"
#include "http/negotiation.hpp"

namespace hostprobe::api {

namespace {

http::AssetRequest asset_request(const http::RouteRequest& request) {
    return {request.http.get_header_value("Accept-Encoding"),
            request.http.get_header_value("If-None-Match")};
}

}  // namespace

void add_page_routes(http::Router& router, std::span<const http::StaticAsset> assets) {
    router.add(
        "GET", std::string(kPageAssetsPattern),
        http::RouteDoc{.tag = "page",
                       .summary =
                           "the page's files (embedded; public, like the page at GET / for a "
                           "browser)",
                       .responses = {{http::kOk,
                                      "the file (gzip when accepted; ETag)",
                                      {{"text/html", ""},
                                       {"text/javascript", ""},
                                       {"text/css", ""},
                                       {"text/plain", ""}},
                                      {}},
                                     {http::kNotModified, "unchanged (If-None-Match)", {}, {}},
                                     http::error_doc(404, "no such file in the page")}},
        [assets](const http::RouteRequest& request) -> Result<http::Reply> {
            const std::string& path = request.path_params.at("asset");
            const http::StaticAsset* asset = http::find_asset(assets, path);
            if (!asset)
                return make_error(ErrorCode::not_found, "the page has no file " + excerpt(path));
            return http::asset_reply(*asset, asset_request(request));
        });
}

std::optional<http::Reply> page_document_reply(const http::RouteRequest& request,
                                               std::span<const http::StaticAsset> assets) {
    if (!http::prefers_html(request.http.get_header_value("Accept"))) return std::nullopt;
    const http::StaticAsset* document = http::find_asset(assets, kPageDocument);
    if (!document) return std::nullopt;
    http::Reply reply = http::asset_reply(*document, asset_request(request));
    for (auto& [name, value] : reply.headers) {
        if (name == "Vary") value = "Accept, " + value;
    }
    return reply;
}

}  // namespace hostprobe::api
