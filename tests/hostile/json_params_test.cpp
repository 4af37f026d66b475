// Hostile JSON in serve --params, HOSTPROBE_PARAMS and --params-file (issue 14, items 2 and 3):
// 1e400 aborted the process with nlohmann's out_of_range; now every way JSON can be wrong is a
// usage error, exit status 2 with the usual "hostprobe: --params...: ..." line.
#include <doctest/doctest.h>

#include <string>

#include "support/daemon.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;

namespace {

void check_usage_error(const Completed& done, const std::string& message) {
    CHECK_MESSAGE(done.status.exited, "killed by a signal: " << done.errors);
    CHECK(done.status.code == 2);
    CHECK_MESSAGE(done.errors.find(message) != std::string::npos, done.errors);
    CHECK(done.errors.find("Usage: hostprobe serve") != std::string::npos);
    CHECK(done.errors.find("terminate") == std::string::npos);
}

Completed serve(const std::vector<std::string>& flags,
                const std::map<std::string, std::string>& environment = {}) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0"};
    args.insert(args.end(), flags.begin(), flags.end());
    return run_to_end(binary(), args, environment);
}

}  // namespace

TEST_CASE("--params with a number beyond a double exits 2 with a message") {
    check_usage_error(serve({"--params", R"({"cipher": {"seconds": 1e400}})"}),
                      "hostprobe: --params: the JSON: number out of range at byte 24: 1e400");
    check_usage_error(serve({}, {{"HOSTPROBE_PARAMS", R"({"cipher": {"block_sizes": [-1e400]}})"}}),
                      "number out of range at byte 29: -1e400");
}

TEST_CASE("--params-file with a number beyond a double, deep nesting or a huge size exits 2") {
    TempTree files;
    files.write("overflow.json", "{\n  \"cipher\": {\n    \"seconds\": 1e400\n  }\n}\n");
    check_usage_error(serve({"--params-file", files.root() + "/overflow.json"}),
                      "overflow.json: number out of range at byte 32 (line 3, column 16): 1e400");
    files.write("deep.json", std::string(100'000, '[') + std::string(100'000, ']'));
    check_usage_error(serve({"--params-file", files.root() + "/deep.json"}),
                      "deep.json: JSON nested deeper than 32 levels at byte 33");
    check_usage_error(serve({"--params", "{\"cipher\": " + std::string(50'000, '{')}),
                      "--params: the JSON: JSON nested deeper than 32 levels at byte 43");
    // /dev/zero would be read forever: it is refused for what it is, before a byte is read.
    check_usage_error(
        serve({"--params-file", "/dev/zero"}),
        "--params-file: cannot read /dev/zero: a character device, not a regular file");
}
