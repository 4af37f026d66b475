// gzip for the answers we make at request time (JSON, the metrics text). cpp-httplib would
// compress them itself, but it picks brotli at quality 11 whenever Accept-Encoding merely
// contains "br" (every browser's does): tens of milliseconds of CPU and megabytes of encoder
// state for one /v1/runs listing, which the page polls. It also ignores "gzip;q=0". Here the
// client's q-values decide (negotiation.hpp), only gzip is offered, at zlib's fastest level
// (nginx's default gzip_comp_level), and small answers stay as they are.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hostprobe::http {

// Below this an answer fits a packet or two; compressing it saves nothing worth the CPU
// (the size Go's gzip handlers use).
inline constexpr size_t kMinCompressedBytes = 1400;

// The media types worth compressing: text and JSON, which is all we make at request time.
bool compressible_type(std::string_view content_type);

// Whether an answer of this type and size is compressed when the client accepts gzip; its
// representation then depends on Accept-Encoding (say so in Vary).
bool varies_with_encoding(std::string_view content_type, size_t size);

// `data` as one gzip member (RFC 1952), or nothing when zlib fails (out of memory): the
// caller sends the answer uncompressed then.
std::optional<std::string> gzip_compress(std::string_view data);

}  // namespace hostprobe::http
