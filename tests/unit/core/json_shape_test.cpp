#include "core/json_shape.hpp"

#include <doctest/doctest.h>

#include "core/strings.hpp"

using hostprobe::schema_gaps;
using hostprobe::schema_of_examples;
using hostprobe::ShapeHints;
using nlohmann::json;

TEST_CASE("schema_of_examples: members of every example required, the others optional") {
    const json schema = schema_of_examples(
        {json{{"count", 0u}, {"name", ""}}, json{{"count", 3u}, {"name", "x"}, {"extra", true}}});
    CHECK(schema["type"] == "object");
    CHECK(schema["required"] == json{"count", "name"});
    CHECK(schema["properties"]["count"] ==
          json{{"type", "integer"}, {"format", "int64"}, {"minimum", 0}, {"maximum", INT64_MAX}});
    CHECK(schema["properties"]["name"] == json{{"type", "string"}});
    CHECK(schema["properties"]["extra"] == json{{"type", "boolean"}});
}

TEST_CASE("schema_of_examples: null in one example and typed in another is nullable") {
    const json schema = schema_of_examples(
        {json{{"maybe", nullptr}, {"rate", 0}}, json{{"maybe", 1.5}, {"rate", -2}}});
    CHECK(schema["properties"]["maybe"] == json{{"type", {"number", "null"}}});
    CHECK(schema["properties"]["rate"]["minimum"] == INT64_MIN);  // it was negative once
    // An integer in one example and a double in another: a number.
    CHECK(schema_of_examples({json(1), json(0.5)}) == json{{"type", "number"}});
}

TEST_CASE("schema_of_examples: list items and nested objects are described") {
    const json empty = {{"cells", json::array()}};
    const json full = {{"cells", {{{"rate", 1.5}, {"spread", {{"min", 1.0}}}}}}};
    const json schema = schema_of_examples({empty, full});
    const json& items = schema["properties"]["cells"]["items"];
    CHECK(items["properties"]["rate"]["type"] == "number");
    CHECK(items["properties"]["spread"]["properties"]["min"]["type"] == "number");
    CHECK(schema_gaps(schema).empty());
    // Only the empty example: the list's items are unknown, and said to be.
    CHECK(hostprobe::join(schema_gaps(schema_of_examples({empty})), "; ") ==
          ".cells: a list without items (only ever empty?)");
    // Only ever null: null, said so.
    CHECK(schema_of_examples({json{{"x", nullptr}}})["properties"]["x"] == json{{"type", "null"}});
}

TEST_CASE("schema_of_examples: objects keyed by numbers, and named ones, are maps") {
    const json schema = schema_of_examples(
        {json{{"bins", {{"1000", 2u}, {"3008", 1u}}}, {"events", {{"oom", 0u}}}}},
        ShapeHints{.maps = {"events"}});
    const json& bins = schema["properties"]["bins"];
    CHECK_FALSE(bins.contains("properties"));
    CHECK(bins["additionalProperties"]["type"] == "integer");
    CHECK(bins["propertyNames"]["pattern"] == "^[0-9]+$");
    CHECK(schema["properties"]["events"]["additionalProperties"]["type"] == "integer");
    CHECK_FALSE(schema["properties"]["events"].contains("propertyNames"));
}
