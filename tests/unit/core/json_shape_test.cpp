#include "core/json_shape.hpp"

#include <doctest/doctest.h>

using hostprobe::top_level_schema;
using nlohmann::json;

TEST_CASE("top_level_schema: each member required with its JSON type, nulls untyped") {
    const json example = {
        {"count", 3u},     {"rate", 0.0}, {"name", ""}, {"ok", false}, {"items", json::array()},
        {"maybe", nullptr}};
    const json schema = top_level_schema(example);
    CHECK(schema["type"] == "object");
    CHECK(schema["required"].size() == 6);
    CHECK(schema["properties"]["count"] == json{{"type", "integer"}});
    CHECK(schema["properties"]["rate"] == json{{"type", "number"}});
    CHECK(schema["properties"]["name"] == json{{"type", "string"}});
    CHECK(schema["properties"]["ok"] == json{{"type", "boolean"}});
    CHECK(schema["properties"]["items"] == json{{"type", "array"}});
    CHECK(schema["properties"]["maybe"] == json::object());
    CHECK(schema["additionalProperties"] == true);
    CHECK(top_level_schema(json(1.5)) == json{{"type", "number"}});
}
