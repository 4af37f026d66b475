#include "core/compressed_text.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>

using hostprobe::core::CompressedText;

TEST_CASE("compressed text gives back exactly what it was given") {
    CHECK(CompressedText().text().empty());
    CHECK(CompressedText("").size() == 0);
    CHECK(CompressedText("x").text() == "x");

    std::string binary(256, '\0');
    for (size_t i = 0; i < binary.size(); ++i)
        binary[i] = static_cast<char>(i);
    CHECK(CompressedText(binary).text() == binary);

    // Incompressible bytes take a little more than they are; the text still comes back whole.
    std::mt19937 random(29);
    std::string noise(1 << 20, '\0');
    for (auto& byte : noise)
        byte = static_cast<char>(random());
    const CompressedText kept(noise);
    CHECK(kept.size() == noise.size());
    CHECK(kept.text() == noise);
}

TEST_CASE("copies share what is kept, and pretty JSON keeps in a fraction of its size") {
    std::string pretty = "{\n  \"flags\": [\n";
    for (int i = 0; i < 400; ++i)
        pretty += "    \"flag_" + std::to_string(i % 37) + "\",\n";
    pretty += "    \"last\"\n  ]\n}";
    const CompressedText kept(pretty);
    const CompressedText copy = kept;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(copy.text() == pretty);
    CHECK(copy.size() == pretty.size());
    CHECK(copy.shares_with(kept));
    CHECK_FALSE(copy.shares_with(CompressedText(pretty)));
    CHECK(kept.kept_size() * 4 < pretty.size());
}
