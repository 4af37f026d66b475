// The page's files (src/ui, recursively), compiled in at build time by cmake/embed.cmake: the
// definition is generated (build/generated/embedded/src_ui.cpp), sorted by path.
#pragma once

#include <span>

#include "http/static_asset.hpp"

namespace hostprobe::api {

std::span<const http::StaticAsset> page_assets();

}  // namespace hostprobe::api
