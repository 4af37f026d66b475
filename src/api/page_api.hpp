// The page for people (issue 18): src/ui's files at GET /ui/<path>, and its index.html at GET /
// for a client that prefers HTML (http/negotiation.hpp). Public: see http::is_public_page.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "http/router.hpp"
#include "http/static_asset.hpp"

namespace hostprobe::api {

inline constexpr std::string_view kPageDocument = "index.html";
inline constexpr std::string_view kPageAssetsPattern = "/ui/{asset...}";

// `assets` must outlive the router (the embedded ones are static).
void add_page_routes(http::Router& router, std::span<const http::StaticAsset> assets);

// GET /: the page's document when the client prefers HTML (and one is embedded); nothing when
// the JSON index is the answer. Either way the answer varies by Accept.
std::optional<http::Reply> page_document_reply(const http::RouteRequest& request,
                                               std::span<const http::StaticAsset> assets);

}  // namespace hostprobe::api
