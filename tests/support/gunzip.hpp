// Decompresses a gzip body with zlib, as a browser would, to compare it with the bytes it
// stands for. Bounded: more than `limit` bytes out is a failure, not an exhausted test.
#pragma once

#include <zlib.h>

#include <optional>
#include <string>
#include <string_view>

namespace hostprobe::testing {

inline std::optional<std::string> gunzip(std::string_view compressed,
                                         size_t limit = 16 * 1024 * 1024) {
    z_stream stream{};
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return std::nullopt;  // 16: gzip only
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    stream.avail_in = static_cast<uInt>(compressed.size());
    std::string out;
    char buffer[16384];
    int status = Z_OK;
    while (status == Z_OK && out.size() <= limit) {
        stream.next_out = reinterpret_cast<Bytef*>(buffer);
        stream.avail_out = sizeof buffer;
        status = inflate(&stream, Z_NO_FLUSH);
        out.append(buffer, sizeof buffer - stream.avail_out);
        if (status == Z_BUF_ERROR && stream.avail_in == 0) break;  // truncated input
    }
    const bool whole = status == Z_STREAM_END && stream.avail_in == 0 && out.size() <= limit;
    inflateEnd(&stream);
    if (!whole) return std::nullopt;
    return out;
}

}  // namespace hostprobe::testing
