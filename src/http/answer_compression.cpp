#include "http/answer_compression.hpp"

#include <zlib.h>

#include <limits>

#include "core/strings.hpp"

namespace hostprobe::http {

namespace {

// gzip framing for deflateInit2 (windowBits + 16).
constexpr int kGzipWrapper = 16;
constexpr int kMinWindowBits = 9;
constexpr int kMaxWindowBits = 15;
constexpr int kMemLevel = 8;

// The smallest window that covers the whole answer: zlib's state is about 4 x 2^bits bytes,
// so a 4 KiB answer needs 64 KiB of it, not the 256 KiB of the default.
int window_bits_for(size_t size) {
    int bits = kMinWindowBits;
    while (bits < kMaxWindowBits && (size_t{1} << bits) < size)
        ++bits;
    return bits;
}

}  // namespace

bool compressible_type(std::string_view content_type) {
    const std::string type = to_lower(content_type.substr(0, content_type.find(';')));
    const std::string_view media = trim(type);
    return media.starts_with("text/") || media == "application/json" ||
           media == "application/problem+json";
}

bool varies_with_encoding(std::string_view content_type, size_t size) {
    return size >= kMinCompressedBytes && compressible_type(content_type);
}

std::optional<std::string> gzip_compress(std::string_view data) {
    if (data.size() > std::numeric_limits<uInt>::max() / 2) return std::nullopt;
    z_stream stream{};
    if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, window_bits_for(data.size()) + kGzipWrapper,
                     kMemLevel, Z_DEFAULT_STRATEGY) != Z_OK)
        return std::nullopt;
    std::string out(deflateBound(&stream, data.size()), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    // deflateBound's size holds the whole member, so one call finishes it.
    const int status = deflate(&stream, Z_FINISH);
    const size_t written = stream.total_out;
    deflateEnd(&stream);
    if (status != Z_STREAM_END) return std::nullopt;
    out.resize(written);
    return out;
}

}  // namespace hostprobe::http
