#include "core/utf8.hpp"

#include <doctest/doctest.h>

#include <random>

#include "core/json_text.hpp"

using namespace hostprobe;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

}  // namespace

TEST_CASE("valid UTF-8 passes unchanged") {
    for (const std::string& text :
         {std::string(), std::string("Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz"),
          std::string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),  // é € 😀
          std::string("\xED\x9F\xBF\xEE\x80\x80\xF4\x8F\xBF\xBF"),   // U+D7FF U+E000 U+10FFFF
          std::string("nul\0inside", 10)}) {
        CHECK(is_valid_utf8(text));
        CHECK(valid_utf8(text) == text);
    }
}

TEST_CASE("each maximal ill-formed subpart becomes one U+FFFD") {
    const auto fixed = [](const std::string& text) { return valid_utf8(text); };
    CHECK(fixed("Xeon \x96 v4") == "Xeon " + kFffd + " v4");            // a lone continuation byte
    CHECK(fixed("\xFF\xFE") == kFffd + kFffd);                          // never in UTF-8
    CHECK(fixed("\xC0\xAF") == kFffd + kFffd);                          // overlong '/'
    CHECK(fixed("\xE0\x80\x80") == kFffd + kFffd + kFffd);              // overlong: E0 needs A0..BF
    CHECK(fixed("\xED\xA0\x80") == kFffd + kFffd + kFffd);              // a surrogate
    CHECK(fixed("\xF4\x90\x80\x80") == kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
    CHECK(fixed("\xE2\x82") == kFffd);                                  // cut short at the end
    CHECK(fixed("\xE2\x82x") == kFffd + "x");                           // cut short by ASCII
    CHECK(fixed("\xF0\x9F\x98\"") == kFffd + "\"");                     // the quote survives
    CHECK(fixed("a\xE2\x82\xE2\x82\xAC") == "a" + kFffd + "\xE2\x82\xAC");
    for (const char* bad : {"\x80", "\xC2", "\xE0\xA0", "\xF5\x80\x80\x80"})
        CHECK_FALSE(is_valid_utf8(bad));
}

TEST_CASE("the repair agrees with the JSON output's, byte for byte") {
    // So that a host value reads the same in /metrics and in GET /v1/host.
    std::mt19937 random(14);
    const unsigned char interesting[] = {0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2,
                                         0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5,
                                         0xFF, 0xA0, 0x9F, 0x8F, 0x90, 'a',  '"'};
    for (int round = 0; round < 20000; ++round) {
        std::string text(random() % 8, ' ');
        for (char& c : text)
            c = random() % 2 ? static_cast<char>(random() % 256)
                             : static_cast<char>(interesting[random() % sizeof interesting]);
        const std::string in_json = json_text(nlohmann::json(text));
        const std::string repaired = valid_utf8(text);
        CAPTURE(text);
        CHECK(is_valid_utf8(repaired));
        CHECK(in_json == nlohmann::json(repaired).dump());
        CHECK(is_valid_utf8(text) == (repaired == text));
    }
}

TEST_CASE("a bad byte is found wherever it lies in long ASCII text, word-aligned or not") {
    // The check reads eight bytes at a time: every position, the tail after the last word too.
    const std::string ascii(37, 'a');
    CHECK(is_valid_utf8(ascii));
    for (size_t at = 0; at < ascii.size(); ++at) {
        std::string bad = ascii;
        bad[at] = '\xFF';
        INFO("bad byte at " << at);
        CHECK_FALSE(is_valid_utf8(bad));
        std::string good = ascii;
        good.replace(at, 1, "\xC3\xA9");  // é
        CHECK(is_valid_utf8(good));
        good.replace(at, 2, "\xC3");  // its lead alone
        CHECK_FALSE(is_valid_utf8(good));
    }
}
