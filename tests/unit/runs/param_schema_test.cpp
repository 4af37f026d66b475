// ParamSpec as JSON Schema: each parameter type, its limits, default and list bounds.
#include "runs/param_schema.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::runs;
using nlohmann::json;

TEST_CASE("param_schema: each parameter type as JSON Schema") {
    const ParamSpec seconds{.name = "seconds",
                            .type = ParamType::number,
                            .default_value = 3,
                            .description = "how long",
                            .min = 0.1,
                            .max = 600,
                            .unit = "s"};
    CHECK(param_schema(seconds) == json{{"type", "number"},
                                        {"minimum", 0.1},
                                        {"maximum", 600},
                                        {"default", 3},
                                        {"description", "how long (s)"}});
    const ParamSpec ciphers{.name = "ciphers",
                            .type = ParamType::choice_list,
                            .default_value = json{"a"},
                            .choices = {"a", "b"},
                            .max_items = 8};
    const json list = param_schema(ciphers);
    CHECK(list["type"] == "array");
    CHECK(list["minItems"] == 1);
    CHECK(list["maxItems"] == 8);
    CHECK(list["items"] == json{{"type", "string"}, {"enum", {"a", "b"}}});
    const ParamSpec threads{.name = "threads",
                            .type = ParamType::auto_sweep_or_counts,
                            .default_value = "auto",
                            .min = 1,
                            .max = 1024};
    const json counts = param_schema(threads);
    REQUIRE(counts["oneOf"].size() == 3);
    CHECK(counts["oneOf"][0]["enum"] == json{"auto", "sweep"});
    CHECK(counts["oneOf"][1] == json{{"type", "integer"}, {"minimum", 1}, {"maximum", 1024}});
    CHECK(counts["oneOf"][2]["items"]["maximum"] == 1024);
    const ParamSpec size{.name = "size", .type = ParamType::byte_size, .default_value = "16k"};
    CHECK(param_schema(size)["oneOf"][1]["type"] == "string");
    const json table = params_schema(ParamTable({seconds, threads}));
    CHECK(table["additionalProperties"] == false);
    CHECK(table["properties"].size() == 2);
    CHECK_FALSE(table.contains("required"));
}
