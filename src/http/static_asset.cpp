#include "http/static_asset.hpp"

#include <algorithm>
#include <string>

#include "http/entity_tag.hpp"
#include "http/negotiation.hpp"

namespace hostprobe::http {

const StaticAsset* find_asset(std::span<const StaticAsset> assets, std::string_view path) {
    const auto found = std::find_if(assets.begin(), assets.end(), [path](const StaticAsset& asset) {
        return asset.path == path;
    });
    return found == assets.end() ? nullptr : &*found;
}

Reply asset_reply(const StaticAsset& asset, const AssetRequest& request) {
    const bool gzip = !asset.gzip_body.empty() && accepts_gzip(request.accept_encoding);
    Reply reply;
    reply.content_type = std::string(asset.content_type);
    reply.headers = {{"ETag", std::string(gzip ? asset.gzip_etag : asset.etag)},
                     {"Cache-Control", "no-cache"},
                     {"Vary", std::string(kAssetVary)}};
    if (if_none_match_hits(request.if_none_match, {asset.etag, asset.gzip_etag}))
        return Reply::not_modified(std::move(reply.headers));
    if (gzip) reply.headers.emplace_back("Content-Encoding", "gzip");
    reply.static_body = gzip ? asset.gzip_body : asset.body;
    return reply;
}

}  // namespace hostprobe::http
