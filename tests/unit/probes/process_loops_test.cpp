// hostprobe-process-loops, the small C program the execl, spawn and shell tests run in, through
// process_loops_runner; and the shell test's files.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <thread>

#include "probes/system/process_loops_runner.hpp"
#include "probes/system/shell_test_files.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/process_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using namespace std::chrono_literals;

namespace {

CopyEnvironment environment_for(std::chrono::milliseconds duration, std::stop_token stop = {}) {
    CopyEnvironment environment;
    environment.stop = std::move(stop);
    environment.deadline = std::chrono::steady_clock::now() + duration;
    environment.process_loops = HOSTPROBE_PROCESS_LOOPS;
    return environment;
}

}  // namespace

TEST_CASE("process loops: execl, spawn and looper count their loops over the duration") {
    for (const char* mode : {"execl", "spawn", "looper"}) {
        CAPTURE(mode);
        ProcessLoopsRequest request{.mode = mode};
        if (std::string(mode) == "looper") request.program = {"/bin/true"};
        const auto report = run_process_loops(environment_for(300ms), request);
        REQUIRE(report.ok());
        CHECK(report->loops >= 2);
        CHECK(report->seconds >= 0.25);
        CHECK(report->seconds < 5);
        CHECK(report->failed_errno == 0);
        CHECK(report->failed_status == -1);
    }
}

TEST_CASE("process loops: a looper program that fails ends the loop, with its status") {
    const auto report =
        run_process_loops(environment_for(5s), {.mode = "looper", .program = {"/bin/false"}});
    REQUIRE(report.ok());
    CHECK(report->loops == 0);
    REQUIRE(report->failed_status >= 0);
    CHECK(WIFEXITED(report->failed_status));
    CHECK(WEXITSTATUS(report->failed_status) == 1);
    CHECK(report->seconds < 4);  // ended at the failure, not at the deadline
}

TEST_CASE("process loops: a program that cannot be run is an error that names why") {
    const auto report =
        run_process_loops(environment_for(5s), {.mode = "looper", .program = {"/nonexistent/sh"}});
    REQUIRE(report.ok());  // the exec fails in the looper's child: exit status 127
    REQUIRE(report->failed_status >= 0);
    CHECK(WEXITSTATUS(report->failed_status) == 127);
}

TEST_CASE("process loops: a stop ends a long looper run at once and kills what it started") {
    std::stop_source stop;
    auto running = std::async(std::launch::async, [&] {
        return run_process_loops(environment_for(60s, stop.get_token()),
                                 {.mode = "looper", .program = {"/bin/sleep", "30"}});
    });
    // The helper and its sleep are up.
    std::vector<pid_t> started;
    REQUIRE(testing::eventually([&] {
        started = testing::children_of(::getpid(), true);
        return started.size() >= 2;
    }));
    const auto stopped_at = std::chrono::steady_clock::now();
    stop.request_stop();
    REQUIRE(running.wait_for(5s) == std::future_status::ready);
    CHECK(std::chrono::steady_clock::now() - stopped_at < 2s);
    const auto report = running.get();
    REQUIRE(report.ok());
    CHECK(report->loops == 0);
    for (pid_t pid : started) {
        CAPTURE(pid);
        CHECK(testing::eventually([&] { return testing::process_gone(pid); }, 10s));
    }
}

TEST_CASE("process loops: without the helper the tests say where it should be") {
    CHECK_FALSE(process_loops_unavailable(HOSTPROBE_PROCESS_LOOPS));
    const auto missing = process_loops_unavailable("/nonexistent/hostprobe-process-loops");
    REQUIRE(missing);
    CHECK(missing->find("/nonexistent/hostprobe-process-loops") != std::string::npos);
    CHECK(process_loops_unavailable("/")->find("not an executable file") != std::string::npos);
    CHECK(process_loops_unavailable("")->find("not found") != std::string::npos);
    auto environment = environment_for(1s);
    environment.process_loops = "/nonexistent/hostprobe-process-loops";
    const auto report = run_process_loops(environment, {.mode = "spawn"});
    REQUIRE_FALSE(report.ok());
    CHECK(report.error().code == ErrorCode::unavailable);
    // Beside a binary: the directory of the resolved path.
    CHECK(process_loops_beside("/nonexistent/hostprobe").empty());
    const std::string beside = process_loops_beside(HOSTPROBE_PROCESS_LOOPS);
    CHECK(beside == HOSTPROBE_PROCESS_LOOPS);
}

TEST_CASE("process loops: arguments it was not made for are a usage error, exit 2") {
    const std::vector<std::vector<std::string>> bad = {
        {},
        {"spawn"},
        {"spawn", "1"},
        {"spawn", "x", "1"},
        {"spawn", "-1", "1"},
        {"spawn", "99999999", "1"},
        {"spawn", "1", "1", "extra"},
        {"execl", "1", "1", "1"},
        {"execl", "1", "1", "1", "0"},
        {"looper", "1", "1"},
        {"looper", "1", "1", "relative/program"},
        {"fork-bomb", "1", "1"},
    };
    for (const auto& args : bad) {
        CAPTURE(args.size());
        const auto ran = testing::run_to_end(HOSTPROBE_PROCESS_LOOPS, args);
        REQUIRE(ran.status.exited);
        CHECK(ran.status.code == 2);
        CHECK(ran.errors.find("not a command") != std::string::npos);
    }
}

TEST_CASE("shell test files: sort.src has the shape of UnixBench's, and printf can take it") {
    const std::string source = shell_sort_source();
    CHECK(source.size() == 8546);
    CHECK(std::count(source.begin(), source.end(), '\n') == 362);
    CHECK(source.back() == '\n');
    size_t with_the = 0;
    size_t start = 0;
    while (start < source.size()) {
        const size_t end = source.find('\n', start);
        const std::string line = source.substr(start, end - start);
        CHECK_FALSE(line.empty());
        if (line.find("the") != std::string::npos) ++with_the;
        start = end + 1;
    }
    CHECK(with_the == 35);
    CHECK(source.find('%') == std::string::npos);
    CHECK(source.find('\\') == std::string::npos);
    CHECK(shell_sort_source() == source);  // the same work on every run and host
    CHECK(std::string(kShellTestScript).find("$(seq \"$1\")") != std::string::npos);
}
