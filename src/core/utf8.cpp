#include "core/utf8.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hostprobe {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

struct ByteRange {
    unsigned char low;
    unsigned char high;
};

// How many bytes the sequence at `at` takes: its length when well formed, else the length
// of its maximal subpart (at least 1), which one U+FFFD replaces. Unicode's Table 3-7: the
// byte after E0, ED, F0 and F4 has a narrower range (no overlong forms, surrogates or code
// points past U+10FFFF).
size_t sequence_length(std::string_view text, size_t at, bool& well_formed) {
    const auto byte = [&](size_t index) { return static_cast<unsigned char>(text[index]); };
    const unsigned char lead = byte(at);
    well_formed = true;
    if (lead < 0x80) return 1;
    size_t length = 0;
    ByteRange second{0x80, 0xBF};
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) second = {0xA0, 0xBF};
        if (lead == 0xED) second = {0x80, 0x9F};
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) second = {0x90, 0xBF};
        if (lead == 0xF4) second = {0x80, 0x8F};
    } else {
        well_formed = false;  // a continuation byte, C0, C1 or F5..FF: never a lead
        return 1;
    }
    for (size_t offset = 1; offset < length; ++offset) {
        const ByteRange range = offset == 1 ? second : ByteRange{0x80, 0xBF};
        if (at + offset >= text.size() || byte(at + offset) < range.low ||
            byte(at + offset) > range.high) {
            well_formed = false;
            return offset;
        }
    }
    return length;
}

// The index of the first byte >= 0x80 from `at` on (text.size() when none). Eight bytes at a
// time: /metrics checks its whole page on every scrape, and the page is ASCII but for a few
// label values (byte by byte it took a quarter of the agent's CPU under wrk).
size_t first_non_ascii(std::string_view text, size_t at) {
    constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
    for (; at + sizeof(std::uint64_t) <= text.size(); at += sizeof(std::uint64_t)) {
        std::uint64_t word = 0;
        std::memcpy(&word, text.data() + at, sizeof word);
        if ((word & kHighBits) != 0) break;
    }
    while (at < text.size() && static_cast<unsigned char>(text[at]) < 0x80)
        ++at;
    return at;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
    size_t at = 0;
    while ((at = first_non_ascii(text, at)) < text.size()) {
        bool well_formed = true;
        at += sequence_length(text, at, well_formed);
        if (!well_formed) return false;
    }
    return true;
}

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t at = 0;
    while (at < text.size()) {
        bool well_formed = true;
        const size_t length = sequence_length(text, at, well_formed);
        if (well_formed) {
            out.append(text.substr(at, length));
        } else {
            out.append(kReplacement);
        }
        at += length;
    }
    return out;
}

}  // namespace hostprobe
