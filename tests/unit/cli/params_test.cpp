// serve --params and --params-file: JSON from outside, refused with exit status 2 and a message
// however it is wrong. (What the daemon then does with good params is in tests/e2e/runs_test.)
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using hostprobe::testing::TempTree;

namespace {

int serve_with(const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0"};
    args.insert(args.end(), flags.begin(), flags.end());
    return cli::run(args, [](const std::string&) { return std::optional<std::string>(); });
}

}  // namespace

TEST_CASE("params with a number beyond a double, or nested too deep, are a usage error") {
    // 1e400 threw nlohmann's out_of_range past the parse_error handler: the process aborted.
    CHECK(serve_with({"--params", R"({"cipher": {"seconds": 1e400}})"}) == 2);
    CHECK(serve_with({"--params", R"({"cipher": {"seconds": -1e400}})"}) == 2);
    CHECK(serve_with({"--params", std::string(100'000, '[') + std::string(100'000, ']')}) == 2);
    CHECK(serve_with({"--params", "{\"cipher\": {"}) == 2);
    TempTree files;
    files.write("overflow.json", "{\n  \"cipher\": {\n    \"seconds\": 1e400\n  }\n}\n");
    CHECK(serve_with({"--params-file", files.root() + "/overflow.json"}) == 2);
    files.write("deep.json", std::string(100'000, '{'));
    CHECK(serve_with({"--params-file", files.root() + "/deep.json"}) == 2);
    files.write("large.json", "{" + std::string(2 << 20, ' ') + "}");
    CHECK(serve_with({"--params-file", files.root() + "/large.json"}) == 2);
    CHECK(serve_with({"--params-file", files.root() + "/missing.json"}) == 2);
}
