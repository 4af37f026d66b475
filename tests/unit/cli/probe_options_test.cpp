// The options serve and survey share are checked by one function (cli/probe_options): a bad
// one is refused by both commands with exit status 2 and the same message.
#include "cli/probe_options.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.hpp"

using namespace hostprobe;

namespace {

// What a command wrote to stderr (fd 2) while it ran, and its exit status.
struct CommandErrors {
    int status = -1;
    std::string text;
};

CommandErrors run_capturing_stderr(const std::vector<std::string>& args) {
    std::fflush(stderr);
    std::FILE* sink = std::tmpfile();
    REQUIRE(sink != nullptr);
    const int saved = ::dup(STDERR_FILENO);
    REQUIRE(saved >= 0);
    REQUIRE(::dup2(::fileno(sink), STDERR_FILENO) == STDERR_FILENO);
    CommandErrors errors;
    errors.status = cli::run(args, [](const std::string&) { return std::optional<std::string>(); });
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    std::rewind(sink);
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, sink)) > 0)
        errors.text.append(buffer, n);
    std::fclose(sink);
    return errors;
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// Each command also gets an unknown probe, refused after the shared options: should a bad
// shared option pass, the command still stops (with another message) instead of serving.
CommandErrors serve_refusing(const std::vector<std::string>& shared) {
    std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--run-on-start",
                                     "no-such-probe"};
    args.insert(args.end(), shared.begin(), shared.end());
    return run_capturing_stderr(args);
}

CommandErrors survey_refusing(const std::vector<std::string>& shared) {
    std::vector<std::string> args = {"survey", "--probes", "no-such-probe"};
    args.insert(args.end(), shared.begin(), shared.end());
    return run_capturing_stderr(args);
}

}  // namespace

TEST_CASE("serve and survey refuse a bad shared option alike: status 2, the same message") {
    struct BadOption {
        std::vector<std::string> flags;
        std::string message;  // the first line of stderr
    };
    const std::vector<BadOption> bad_options = {
        {{"--sysroot", "/no/such/sysroot"}, "--sysroot /no/such/sysroot is not a directory"},
        {{"--params", "[]"}, "--params: the JSON must hold a JSON object"},
        {{"--params", "{}", "--params-file", "/no/such/params.json"},
         "give --params-file or --params, not both"},
        {{"--params-file", "/no/such/params.json"}, "--params-file: cannot read"},
        {{"--disk-dir", "/no/such/directory"}, "--disk-dir: "},
        {{"--disk-max-bytes", "0"}, "--disk-max-bytes must be a size such as 4g"},
        {{"--disk-max-runtime", "0"}, "--disk-max-runtime"},
        {{"--ecs-metadata-uri", "ftp://example.com/"}, "--ecs-metadata-uri: "},
        {{"--price-vcpu-hour", "-1"}, "--price-vcpu-hour"},
        {{"--price-gb-hour", "lots"}, "--price-gb-hour"},
        {{"--emf-namespace", "AWS/EC2"},
         "--emf-namespace: namespaces starting with AWS/ are reserved for AWS services"},
    };
    for (const auto& bad : bad_options) {
        CAPTURE(bad.flags.front());
        const CommandErrors serve = serve_refusing(bad.flags);
        const CommandErrors survey = survey_refusing(bad.flags);
        CHECK(serve.status == 2);
        CHECK(survey.status == 2);
        CHECK(first_line(serve.text).rfind("hostprobe: " + bad.message, 0) == 0);
        CHECK(first_line(survey.text) == first_line(serve.text));
    }
}

TEST_CASE("the shared options, all valid, are taken whole") {
    std::vector<cli::OptionSpec> specs = {cli::sysroot_option()};
    for (auto group : {cli::probe_run_options("runs"), cli::task_options(), cli::emf_options("")})
        specs.insert(specs.end(), group.begin(), group.end());
    const cli::OptionParser parser("shared", "", specs);
    auto parsed = parser.parse(
        {"--sysroot", "/", "--params", R"({"cipher": {"seconds": 1}})", "--disk-max-bytes", "1g",
         "--disk-max-runtime", "60", "--system-shell", "/bin/bash", "--ecs-metadata-uri",
         "http://169.254.170.2/v4/task", "--price-vcpu-hour", "0.5", "--price-gb-hour", "0.25",
         "--emf", "--emf-namespace", "fleet/a"},
        [](const std::string&) { return std::optional<std::string>(); });
    REQUIRE(parsed.ok());
    auto shared = cli::parse_shared_probe_options(*parsed);
    REQUIRE(shared.ok());
    CHECK(shared->sysroot == "/");
    CHECK(shared->params == nlohmann::json{{"cipher", {{"seconds", 1}}}});
    CHECK(shared->storage.allowed_dirs.empty());
    CHECK(shared->storage.max_bytes == uint64_t{1} << 30);
    CHECK(shared->storage.max_runtime_seconds == 60);
    CHECK(shared->system_shell == "/bin/bash");
    CHECK(shared->ecs_metadata_uri == "http://169.254.170.2/v4/task");
    CHECK(shared->prices.vcpu_hour == 0.5);
    CHECK(shared->prices.gb_hour == 0.25);
    CHECK(shared->emf);
    CHECK(shared->emf_namespace == "fleet/a");
}
