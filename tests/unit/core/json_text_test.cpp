#include "core/json_text.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;
using nlohmann::json;

TEST_CASE("json_text prints valid JSON as dump does") {
    const json value = {{"model", "Intel(R) Xeon(R)"}, {"cpus", 2}};
    CHECK(json_text(value) == value.dump());
    CHECK(json_text(value, 2) == value.dump(2));
}

TEST_CASE("json_text replaces bytes that are not UTF-8 instead of throwing") {
    // Found by fuzz_cpuinfo: a model name from /proc/cpuinfo with a stray byte.
    const json value = {{"model", std::string("Xeon \x96 v4")}};
    CHECK_THROWS(value.dump());
    const std::string text = json_text(value);
    CHECK(text == "{\"model\":\"Xeon \xEF\xBF\xBD v4\"}");
    CHECK(json::accept(text));
}
