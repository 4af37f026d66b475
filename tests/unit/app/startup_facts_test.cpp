// The facts serve and survey start with: every warning of the host facts is logged once, as a
// warn line of its own (fleet logs are searched for them).
#include "app/startup_facts.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;

namespace {

// What a Logger wrote to `sink`, read from its start.
std::string logged_startup_lines(std::FILE* sink) {
    std::fflush(sink);
    std::rewind(sink);
    std::string text;
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, sink)) > 0)
        text.append(buffer, n);
    return text;
}

// A log line from " level=" on, without its newline: the time differs from line to line.
std::string without_time(const std::string& line) {
    const size_t level = line.find(" level=");
    if (level == std::string::npos) return "";
    const size_t end = line.back() == '\n' ? line.size() - 1 : line.size();
    return line.substr(level, end - level);
}

}  // namespace

TEST_CASE("start-up facts log each of their warnings as a warn line") {
    testing::TempTree empty;  // no /proc or /sys: the facts say so in warnings
    std::FILE* sink = std::tmpfile();
    REQUIRE(sink != nullptr);
    Logger log(sink);
    const host::HostFacts facts = app::collect_startup_facts(SysRoot(empty.root()), log);
    const std::string logged = logged_startup_lines(sink);
    std::fclose(sink);
    REQUIRE_FALSE(facts.warnings.empty());
    std::istringstream lines(logged);
    std::string line;
    size_t count = 0;
    while (std::getline(lines, line)) {
        REQUIRE(count < facts.warnings.size());
        CHECK(without_time(line) ==
              without_time(Logger::format_line("T", "warn", facts.warnings[count], {})));
        ++count;
    }
    CHECK(count == facts.warnings.size());
}

TEST_CASE("start-up facts of a replayed host log no warning") {
    std::FILE* sink = std::tmpfile();
    REQUIRE(sink != nullptr);
    Logger log(sink);
    const host::HostFacts facts = app::collect_startup_facts(
        SysRoot(testing::fixtures_dir() + "/sysroots/graviton2-8cpu"), log);
    const std::string logged = logged_startup_lines(sink);
    std::fclose(sink);
    CHECK(facts.warnings.empty());
    CHECK(logged.empty());
    CHECK_FALSE(facts.cpu_types.empty());
}
