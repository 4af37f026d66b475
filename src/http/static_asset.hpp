// A file served as it was embedded at build time (the page under /ui/): its bytes, a gzip copy,
// entity tags, and the answer to a GET for it (gzip when accepted, 304 when unchanged).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "http/reply.hpp"

namespace hostprobe::http {

struct StaticAsset {
    std::string_view path;  // relative to the embedded folder: "vendor/uPlot.iife.min.js"
    std::string_view content_type;
    std::string_view etag;  // quoted: "\"1f0c...\""
    std::string_view body;
    std::string_view gzip_etag;  // empty when there is no gzip copy (it would not be smaller)
    std::string_view gzip_body;
};

const StaticAsset* find_asset(std::span<const StaticAsset> assets, std::string_view path);

// What of the request decides the answer.
struct AssetRequest {
    std::string accept_encoding;
    std::string if_none_match;
};

// The names of the headers the answer varies by, for Vary.
inline constexpr std::string_view kAssetVary = "Accept-Encoding";

// 200 with the gzip copy or the bytes as they are, or 304 with no body when If-None-Match
// names either. "Cache-Control: no-cache": the names carry no version, so a browser asks again
// each time (a cheap 304 while the binary is the same) and never runs an old page's script
// against a new binary's API.
Reply asset_reply(const StaticAsset& asset, const AssetRequest& request);

}  // namespace hostprobe::http
