#include "core/shared_json.hpp"

#include <doctest/doctest.h>

#include "core/json_text.hpp"

using hostprobe::core::SharedJson;

TEST_CASE("SharedJson: copies share one text instead of copying it, and give the value back") {
    const nlohmann::json value{{"value", 7}, {"flags", {"aes", "avx2"}}, {"ratio", 0.1}};
    const SharedJson result(value);
    const SharedJson copy = result;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(copy.shares_text_with(result));
    CHECK_FALSE(copy.shares_text_with(SharedJson(value)));
    CHECK(copy.get() == value);
    CHECK(copy["value"] == 7);
    CHECK(copy == result);
    CHECK_THROWS_AS(copy["missing"], nlohmann::json::out_of_range);
}

TEST_CASE("SharedJson: default is null, and a null json stays null") {
    CHECK(SharedJson().get().is_null());
    CHECK(SharedJson(nlohmann::json()).get().is_null());
    CHECK(SharedJson() == SharedJson(nlohmann::json()));
}

TEST_CASE("SharedJson: its pretty text is made once and matches json_text, even for odd bytes") {
    const nlohmann::json value{{"model", "Graviton\n2 \"x\""}, {"raw", std::string("a\xff")}};
    const SharedJson result(value);
    CHECK(result.pretty_text() == hostprobe::json_text(value, 2));
    CHECK(result.pretty_size() == result.pretty_text().size());
    CHECK(SharedJson().pretty_text() == "null");
}
