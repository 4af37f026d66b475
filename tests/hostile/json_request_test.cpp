// Hostile JSON in POST /v1/runs against the real agent (issue 14, items 2 and 3): nesting that
// overflowed the stack, and numbers beyond a double that answered 500 with nlohmann's text.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "support/daemon.hpp"
#include "support/raw_http.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

// The status and the "error" of a POST /v1/runs answer, which must be JSON whatever was sent.
std::pair<int, std::string> post_run(const Daemon& daemon, const std::string& body) {
    auto response = daemon.client().Post("/v1/runs", body, "application/json");
    REQUIRE_MESSAGE(response, "no answer; the agent said: " << daemon.process.errors());
    const json answer = json::parse(response->body, nullptr, /*allow_exceptions=*/false);
    REQUIRE_MESSAGE(answer.is_object(), response->body);
    return {response->status, answer.value("error", "")};
}

}  // namespace

TEST_CASE("a body nested 100,000 deep is 400 naming the depth, and the agent stays up") {
    // Stack overflow before: the params were copied recursively, one frame per level.
    Daemon daemon({"--max-body-bytes", "1m"});
    const std::string deep = hostprobe::testing::nested_arrays(100'000);
    for (const std::string& body :
         {R"({"probe": "cipher", "params": {"seconds": )" + deep + "}}",
          R"({"probe": "cpu", "params": {"x": )" + deep + "}}",
          R"({"probe": "cpu", "params": )" + deep + "}", R"({"probe": )" + deep + "}", deep,
          std::string(1 << 19, '{')}) {
        const auto [status, error] = post_run(daemon, body);
        CHECK(status == 400);
        CHECK(error.find("JSON nested deeper than 32 levels at byte ") == 0);
        REQUIRE(healthy(daemon));
    }
    // 32 levels are fine as JSON; the parameter table then refuses them.
    const auto [status, error] = post_run(daemon, R"({"probe": "cipher", "params": {"ciphers": )" +
                                                      hostprobe::testing::nested_arrays(30) + "}}");
    CHECK(status == 400);
    CHECK(error.find("'ciphers'") != std::string::npos);
}

TEST_CASE("a number beyond a double anywhere in a body is 400 naming it, not 500") {
    Daemon daemon;
    for (const std::string& body :
         {std::string(R"({"probe": "cipher", "params": {"seconds": 1e400}})"),
          std::string(R"({"probe": "cipher", "params": {"block_sizes": [16, -1e999]}})"),
          std::string(R"({"probe": 1e400})"), std::string(R"({"other": 1E+400})"),
          std::string("[") + std::string(500, '9') + "]"}) {
        CAPTURE(body);
        const auto [status, error] = post_run(daemon, body);
        CHECK(status == 400);
        CHECK(error.find("number out of range at byte ") == 0);
        CHECK(error.find("json.exception") == std::string::npos);
        CHECK(error.size() < 100);
    }
    // In range for a double but not for the parameter: the parameter's own message.
    const auto [status, error] =
        post_run(daemon, R"({"probe": "cipher", "params": {"block_sizes": [1e300]}})");
    CHECK(status == 400);
    CHECK(error.find("an item of 'block_sizes' is 1e+300; it must be from") == 0);
    CHECK(healthy(daemon));
}
