// A token that is only whitespace (issue 14, class 11): from HOSTPROBE_TOKEN it used to turn
// authentication off without a word, while the same content in --token-file exited 2. Both
// now refuse to start with a message naming the source.
#include <doctest/doctest.h>

#include "support/daemon.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

TEST_CASE("HOSTPROBE_TOKEN and --token-file of only whitespace: exit 2, a clear message") {
    TempTree files;
    for (const std::string blank : {" ", "   ", "\t", " \n", "\n\n", " \t\r\n "}) {
        CAPTURE(blank);
        const auto from_environment = run_to_end(binary(), {"serve", "--listen", "127.0.0.1:0"},
                                                 {{"HOSTPROBE_TOKEN", blank}}, 5s);
        CHECK(from_environment.status.exited);
        CHECK(from_environment.status.code == 2);
        CHECK(from_environment.errors.find("HOSTPROBE_TOKEN is empty or only whitespace") !=
              std::string::npos);

        files.write("token", blank);
        const auto from_file = run_to_end(binary(), {"serve", "--listen", "127.0.0.1:0",
                                                     "--token-file", files.root() + "/token"});
        CHECK(from_file.status.code == 2);
        CHECK(from_file.errors.find("--token-file " + files.root() +
                                    "/token is empty or only whitespace") != std::string::npos);
        const auto from_file_variable =
            run_to_end(binary(), {"serve", "--listen", "127.0.0.1:0"},
                       {{"HOSTPROBE_TOKEN_FILE", files.root() + "/token"}});
        CHECK(from_file_variable.status.code == 2);
    }
}

TEST_CASE("a token with a line break or NUL inside: exit 2 rather than a token nobody can send") {
    TempTree files;
    files.write("two-lines", "first-line\nsecond-line\n");
    const auto two_lines = run_to_end(binary(), {"serve", "--listen", "127.0.0.1:0", "--token-file",
                                                 files.root() + "/two-lines"});
    CHECK(two_lines.status.code == 2);
    CHECK(two_lines.errors.find("control character") != std::string::npos);
    const auto tab = run_to_end(binary(), {"serve", "--listen", "127.0.0.1:0"},
                                {{"HOSTPROBE_TOKEN", "half\ttoken"}});
    CHECK(tab.status.code == 2);
}

TEST_CASE("a token with whitespace around it is still the token") {
    Daemon daemon({}, {{"HOSTPROBE_TOKEN", "  padded-token \n"}});
    auto client = daemon.client();
    const httplib::Headers bearer{{"Authorization", "Bearer padded-token"}};
    auto refused = client.Post("/v1/runs", R"({"probe": "cpu"})", "application/json");
    REQUIRE(refused);
    CHECK(refused->status == 401);
    auto accepted = client.Post("/v1/runs", bearer, R"({"probe": "cpu"})", "application/json");
    REQUIRE(accepted);
    CHECK(accepted->status == 202);
}
