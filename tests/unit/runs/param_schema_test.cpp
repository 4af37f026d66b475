// ParamSpec as JSON Schema: each parameter type, its limits, default and list bounds.
#include "runs/param_schema.hpp"

#include <doctest/doctest.h>

#include <string>

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
    CHECK(counts["oneOf"][1] ==
          json{{"type", "integer"}, {"format", "int64"}, {"minimum", 1}, {"maximum", 1024}});
    CHECK(counts["oneOf"][2]["items"]["maximum"] == 1024);
    const ParamSpec size{.name = "size", .type = ParamType::byte_size, .default_value = "16k"};
    CHECK(param_schema(size)["oneOf"][1]["type"] == "string");
    const json table = params_schema(ParamTable({seconds, threads}));
    CHECK(table["additionalProperties"] == false);
    CHECK(table["properties"].size() == 2);
    CHECK_FALSE(table.contains("required"));
}

TEST_CASE("param_schema: text and integers carry the bounds ParamTable enforces") {
    const ParamSpec directory{
        .name = "directory", .type = ParamType::string, .default_value = "", .max_length = 10};
    const ParamTable table({directory});
    const json schema = param_schema(directory);
    CHECK(schema["maxLength"] == 10);
    CHECK(table.normalize(json{{"directory", std::string(10, 'a')}}).ok());
    CHECK_FALSE(table.normalize(json{{"directory", std::string(11, 'a')}}).ok());
    CHECK_FALSE(table.normalize(json{{"directory", std::string("a\0b", 3)}}).ok());
    CHECK(schema["pattern"] == "^[^\\u0000]*$");
    // An integer without limits of its own: ParamTable's 2^53.
    const json count = param_schema(ParamSpec{.name = "count", .default_value = 1});
    CHECK(count["maximum"] == 9007199254740992);
    CHECK(count["minimum"] == -9007199254740992);
    CHECK_FALSE(ParamTable({ParamSpec{.name = "count", .default_value = 1}})
                    .normalize(json{{"count", 9007199254740993.0 * 2}})
                    .ok());
}

TEST_CASE("normalized_params_schema: every parameter required, as the agent answers them") {
    const ParamTable table(
        {ParamSpec{.name = "a", .default_value = 1},
         ParamSpec{.name = "b", .type = ParamType::boolean, .default_value = false}});
    CHECK(normalized_params_schema(table)["required"] == json{"a", "b"});
    CHECK_FALSE(params_schema(table).contains("required"));
    CHECK(params_schema(table)["maxProperties"] == 2);
}
