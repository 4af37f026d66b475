#include "cli/options.hpp"

#include <doctest/doctest.h>

#include <map>

using namespace hostprobe;
using namespace hostprobe::cli;

namespace {

EnvironmentLookup fake_environment(std::map<std::string, std::string> values) {
    return [values](const std::string& key) -> std::optional<std::string> {
        auto it = values.find(key);
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

OptionParser parser() {
    return OptionParser("serve", "test",
                        {{"listen", "HOST:PORT", "0.0.0.0:9740", "where"},
                         {"sysroot", "DIR", "/", "root"},
                         {"json", "", "", "switch"},
                         {"http-threads", "N", "", "threads"}});
}

}  // namespace

TEST_CASE("every option has a HOSTPROBE_ environment twin") {
    CHECK(OptionSpec{"http-threads", "N", "", ""}.env_name() == "HOSTPROBE_HTTP_THREADS");
    CHECK(parser().usage().find("HOSTPROBE_LISTEN") != std::string::npos);
    CHECK(OptionSpec{"url", "URL", "", "", "HOSTPROBE_HEALTHCHECK_URL"}.env_name() ==
          "HOSTPROBE_HEALTHCHECK_URL");
}

TEST_CASE("a flag beats its environment twin, which beats the default") {
    auto defaults = parser().parse({}, fake_environment({}));
    REQUIRE(defaults.ok());
    CHECK(defaults->get("listen") == "0.0.0.0:9740");
    CHECK(defaults->source("listen") == "default");
    CHECK_FALSE(defaults->has("http-threads"));

    auto from_env = parser().parse({}, fake_environment({{"HOSTPROBE_LISTEN", "127.0.0.1:1"}}));
    CHECK(from_env->get("listen") == "127.0.0.1:1");
    CHECK(from_env->source("listen") == "env HOSTPROBE_LISTEN");

    auto from_flag = parser().parse({"--listen", "127.0.0.1:2"},
                                    fake_environment({{"HOSTPROBE_LISTEN", "127.0.0.1:1"}}));
    CHECK(from_flag->get("listen") == "127.0.0.1:2");
    CHECK(parser().parse({"--listen=[::1]:3"}, fake_environment({}))->get("listen") == "[::1]:3");
}

TEST_CASE("switches take no value on the command line and a boolean in the environment") {
    CHECK(parser().parse({"--json"}, fake_environment({}))->is_on("json"));
    CHECK_FALSE(parser().parse({"--json=false"}, fake_environment({}))->is_on("json"));
    CHECK(parser().parse({}, fake_environment({{"HOSTPROBE_JSON", "yes"}}))->is_on("json"));
    auto bad = parser().parse({}, fake_environment({{"HOSTPROBE_JSON", "maybe"}}));
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("HOSTPROBE_JSON") != std::string::npos);
}

TEST_CASE("bad command lines are usage errors that say what is wrong") {
    auto unknown = parser().parse({"--nope"}, fake_environment({}));
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message == "unknown option '--nope'");
    auto missing = parser().parse({"--listen"}, fake_environment({}));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.find("needs a value") != std::string::npos);
    CHECK_FALSE(parser().parse({"-x"}, fake_environment({})).ok());
    auto positional = parser().parse({"extra", "--", "--json"}, fake_environment({}));
    REQUIRE(positional.ok());
    CHECK(positional->positionals() == std::vector<std::string>{"extra", "--json"});
}

TEST_CASE("an empty environment variable counts as unset") {
    auto empty = parser().parse({}, fake_environment({{"HOSTPROBE_LISTEN", ""}}));
    REQUIRE(empty.ok());
    CHECK(empty->get("listen") == "0.0.0.0:9740");
    CHECK(empty->source("listen") == "default");
}

TEST_CASE("an empty environment variable sets an option whose empty value means none") {
    OptionParser with_none("serve", "test",
                           {{"system-shell", "PATH", "/bin/sh", "shell", "", false, true}});
    auto empty = with_none.parse({}, fake_environment({{"HOSTPROBE_SYSTEM_SHELL", ""}}));
    REQUIRE(empty.ok());
    CHECK(empty->get("system-shell").empty());
    CHECK(empty->source("system-shell") == "env HOSTPROBE_SYSTEM_SHELL");
    auto unset = with_none.parse({}, fake_environment({}));
    REQUIRE(unset.ok());
    CHECK(unset->get("system-shell") == "/bin/sh");
}

TEST_CASE("a bearer token that is only whitespace is refused, from a file or the environment") {
    CHECK(*parse_bearer_token("  correct-horse-battery\n", "--token-file t") ==
          "correct-horse-battery");
    for (const std::string blank : {"", " ", "\n", " \t\r\n "}) {
        for (const std::string where : {"HOSTPROBE_TOKEN", "--token-file /run/secrets/token"}) {
            auto token = parse_bearer_token(blank, where);
            REQUIRE_FALSE(token.ok());
            CHECK(token.error().message.find(where + " is empty or only whitespace") == 0);
        }
    }
}

TEST_CASE("a bearer token with a control character inside is refused") {
    for (const std::string& bad : {std::string("first\nsecond"), std::string("a\tb"),
                                   std::string("nul\0byte", 8), std::string("del\x7f")}) {
        auto token = parse_bearer_token(bad, "HOSTPROBE_TOKEN");
        REQUIRE_FALSE(token.ok());
        CHECK(token.error().message.find("control character") != std::string::npos);
    }
}
