#include "runs/param_table.hpp"

#include <doctest/doctest.h>

#include <limits>

#include "probes/cipher/cipher_probe.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using nlohmann::json;

namespace {
const ParamTable& cipher_params() {
    static const probes::CipherProbe probe;
    return probe.params();
}
std::string error_of(const json& input) {
    auto result = cipher_params().normalize(input);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().code == ErrorCode::invalid_argument);
    return result.error().message;
}
}  // namespace

TEST_CASE("defaults fill in what is not given") {
    auto params = cipher_params().normalize(json::object());
    REQUIRE(params.ok());
    CHECK((*params)["ciphers"] == json{"aes-128-gcm", "aes-128-ctr", "chacha20"});
    CHECK((*params)["block_sizes"] == json{16, 64, 256, 1024, 8192, 16384});
    CHECK((*params)["seconds"] == 3);
    CHECK((*params)["threads"] == "auto");
    CHECK((*params)["mode"] == "stream");
    CHECK((*params)["repetitions"] == 1);
    CHECK((*params)["decrypt"] == false);
    CHECK(cipher_params().normalize(nullptr).ok());
}

TEST_CASE("bad params are refused with the limit or the valid values") {
    CHECK(error_of({{"ciphers", {"rot13"}}}) ==
          "an item of 'ciphers' 'rot13' is not valid; valid: aes-128-gcm, aes-256-gcm, "
          "aes-128-ctr, aes-256-ctr, "
          "aes-128-cbc, aes-256-cbc, chacha20, chacha20-poly1305");
    CHECK(error_of({{"speed", 1}})
              .rfind("unknown parameter 'speed'; parameters: ciphers, block_sizes", 0) == 0);
    CHECK(error_of({{"seconds", 61}}) == "'seconds' is 61; it must be from 0.1 to 60 s");
    CHECK(error_of({{"seconds", "3"}}) == "'seconds' must be a number");
    CHECK(error_of({{"block_sizes", {0}}}) ==
          "an item of 'block_sizes' is 0; it must be from 1 to 1048576 bytes");
    CHECK(error_of({{"block_sizes", json::array()}}) == "'block_sizes' must not be empty");
    CHECK(error_of({{"block_sizes", 16}}) == "'block_sizes' must be a list");
    CHECK(error_of({{"threads", 0}}) == "'threads' is 0; it must be from 1 to 256");
    CHECK(error_of({{"threads", "many"}}).find("\"auto\" or an integer") != std::string::npos);
    CHECK(error_of({{"repetitions", 2.5}}) == "'repetitions' must be an integer");
    CHECK(error_of({{"decrypt", "yes"}}) == "'decrypt' must be true or false");
    CHECK(error_of({{"mode", "ecb"}}) ==
          "'mode' 'ecb' is not valid; valid: stream, message, aead-record");
    CHECK(error_of(json::array()) == "params must be a JSON object");
    CHECK(error_of({{"block_sizes", json(std::vector<int>(17, 16))}}) ==
          "'block_sizes' has 17 items; at most 16 are allowed");
}

TEST_CASE("lists drop repeats; integral floats count as integers") {
    auto params = cipher_params().normalize({{"block_sizes", {16, 16, 64}}, {"threads", 2.0}});
    REQUIRE(params.ok());
    CHECK((*params)["block_sizes"] == json{16, 64});
    CHECK((*params)["threads"] == 2);
}

TEST_CASE("command-line text converts by type") {
    auto params = cipher_params().normalize_text({{"ciphers", "chacha20,aes-256-gcm"},
                                                  {"block-sizes", "16, 8192"},
                                                  {"seconds", "0.5"},
                                                  {"threads", "auto"},
                                                  {"decrypt", "yes"}});
    REQUIRE(params.ok());
    CHECK((*params)["ciphers"] == json{"chacha20", "aes-256-gcm"});
    CHECK((*params)["block_sizes"] == json{16, 8192});
    CHECK((*params)["seconds"] == 0.5);
    CHECK((*params)["decrypt"] == true);
    CHECK_FALSE(cipher_params().normalize_text({{"seconds", "soon"}}).ok());
    CHECK_FALSE(cipher_params().normalize_text({{"nope", "1"}}).ok());
    CHECK_FALSE(cipher_params().normalize_text({{"decrypt", "maybe"}}).ok());
}

TEST_CASE("the table describes itself for GET /v1/probes") {
    const json described = cipher_params().describe();
    REQUIRE(described.size() == 8);  // sustained_seconds came last (issue 17)
    CHECK(described[1]["name"] == "block_sizes");
    CHECK(described[1]["type"] == "integer list");
    CHECK(described[1]["min"] == 1);
    CHECK(described[1]["max"] == 1048576);
    CHECK(described[1]["unit"] == "bytes");
    CHECK(described[0]["choices"].size() == 8);
}

TEST_CASE("examples are described for a form to offer, and limit nothing") {
    const ParamTable table({ParamSpec{.name = "directory",
                                      .type = ParamType::string,
                                      .default_value = "",
                                      .examples = {"/mnt/efs", "/var/tmp"}}});
    CHECK(table.describe()[0]["examples"] == json::array({"/mnt/efs", "/var/tmp"}));
    CHECK(table.normalize({{"directory", "/elsewhere"}}).ok());
    CHECK_FALSE(cipher_params().describe()[0].contains("examples"));
}

TEST_CASE("integers too large for int64 are refused by range, not converted") {
    // Found by fuzz_probe_params: "--block-sizes 15,888...8" became 8.9e29, and converting that
    // to int64 was undefined behaviour.
    CHECK(error_of({{"block_sizes", {8.888888e29}}}).find("it must be from 1 to 1048576 bytes") !=
          std::string::npos);
    CHECK(error_of({{"repetitions", std::numeric_limits<uint64_t>::max()}})
              .find("'repetitions' is 1") != std::string::npos);
    CHECK(error_of({{"repetitions", -1e300}}).find("'repetitions' is -1") != std::string::npos);
}

TEST_CASE("\"auto\" or an integer list: either form, from JSON and from command-line text") {
    const ParamTable table({ParamSpec{.name = "copies",
                                      .type = ParamType::auto_or_integer_list,
                                      .default_value = "auto",
                                      .description = "copies",
                                      .min = 1,
                                      .max = 64,
                                      .max_items = 4}});
    CHECK((*table.normalize(json::object()))["copies"] == "auto");
    CHECK((*table.normalize({{"copies", {1, 8, 1}}}))["copies"] == json{1, 8});
    CHECK((*table.normalize_text({{"copies", "auto"}}))["copies"] == "auto");
    CHECK((*table.normalize_text({{"copies", "1,2"}}))["copies"] == json{1, 2});
    const auto word = table.normalize({{"copies", "all"}});
    REQUIRE_FALSE(word.ok());
    CHECK(word.error().message.find("\"auto\" or a list of integers") != std::string::npos);
    CHECK_FALSE(table.normalize({{"copies", {65}}}).ok());
    CHECK_FALSE(table.normalize({{"copies", json::array()}}).ok());
    CHECK_FALSE(table.normalize({{"copies", {1, 2, 3, 4, 5}}}).ok());
    CHECK(table.describe()[0]["type"] == "\"auto\" or integer list");
    CHECK(table.describe()[0]["max_items"] == 4);
}

TEST_CASE("a value just past a limit is not printed as the limit") {
    // %.15g printed 0.09999999999999999 as 0.1: "'seconds' is 0.1; it must be from 0.1".
    CHECK(error_of({{"seconds", 0.09999999999999999}}) ==
          "'seconds' is 0.09999999999999999; it must be from 0.1 to 60 s");
    CHECK(error_of({{"seconds", 60.00000000000001}}) ==
          "'seconds' is 60.00000000000001; it must be from 0.1 to 60 s");
    const ParamTable table({ParamSpec{.name = "ratio",
                                      .type = ParamType::number,
                                      .default_value = 0.5,
                                      .description = "ratio",
                                      .min = 0.123456789012345678,
                                      .max = 1}});
    const auto below = table.normalize({{"ratio", 0.1234567890123456}});
    REQUIRE_FALSE(below.ok());
    CHECK(below.error().message ==
          "'ratio' is 0.1234567890123456; it must be from 0.12345678901234568 to 1");
    // Back from the text, the limit in the message is the limit itself.
    CHECK(table.normalize({{"ratio", 0.12345678901234568}}).ok());
}

TEST_CASE("a probe without parameters says so when given one") {
    const ParamTable none;
    const auto given = none.normalize({{"verbose", true}});
    REQUIRE_FALSE(given.ok());
    CHECK(given.error().message == "unknown parameter 'verbose'; this probe takes no parameters");
    const auto from_text = none.normalize_text({{"verbose", "1"}});
    REQUIRE_FALSE(from_text.ok());
    CHECK(from_text.error().message ==
          "unknown parameter 'verbose'; this probe takes no parameters");
}

TEST_CASE("sizes: every fio unit spelling, bytes too") {
    const ParamTable table({ParamSpec{.name = "bs",
                                      .type = ParamType::byte_size,
                                      .default_value = "4k",
                                      .description = "block size",
                                      .min = 512,
                                      .max = 16 << 20}});
    for (const auto& [text, bytes] :
         std::vector<std::pair<std::string, int64_t>>{{"512", 512},
                                                      {"512b", 512},
                                                      {"512B", 512},
                                                      {"4k", 4096},
                                                      {"4kb", 4096},
                                                      {"4KiB", 4096},
                                                      {"4K", 4096},
                                                      {"1m", 1 << 20},
                                                      {"1mb", 1 << 20},
                                                      {"1MiB", 1 << 20},
                                                      {"16m", 16 << 20}}) {
        CAPTURE(text);
        const auto normalized = table.normalize({{"bs", text}});
        REQUIRE(normalized.ok());
        CHECK((*normalized)["bs"] == bytes);
    }
    for (const std::string& bad :
         std::vector<std::string>{"4kk", "4bk", "k", "4x", "4ki", "-4k", "4.5k", "b"}) {
        CAPTURE(bad);
        CHECK_FALSE(table.normalize({{"bs", bad}}).ok());
    }
    const auto too_small = table.normalize({{"bs", "511b"}});
    REQUIRE_FALSE(too_small.ok());
    CHECK(too_small.error().message == "'bs' is 511; it must be from 512 to 16m");
}
