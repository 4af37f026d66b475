// Each system test for 0.2 s: plausible positive results; stopped mid-test, no child process and
// no file is left behind.
#include "probes/system/system_tests.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <thread>

#include "app/orphan_reaper.hpp"
#include "probes/storage/directory_handle.hpp"
#include "probes/system/dhrystone.hpp"
#include "probes/system/system_measurement.hpp"
#include "probes/system/whetstone.hpp"
#include "support/eventually.hpp"
#include "support/process_tree.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using namespace std::chrono_literals;

namespace {

bool have_shell() {
    return !shell_unavailable("/bin/sh");
}

DirectoryHandle open_work(const std::string& path) {
    auto opened = DirectoryHandle::open(path);
    REQUIRE(opened.ok());
    return std::move(*opened);
}

// A throw-away work directory, open as the probe hands it to the copies.
struct WorkTree {
    testing::TempTree tree;
    DirectoryHandle handle = open_work(tree.root());
    const std::string& root() const { return tree.root(); }
};

SystemMeasurementSpec spec_for(const std::string& name, int directory_fd,
                               const std::string& directory, std::stop_token stop,
                               size_t copies = 1, double seconds = 0.2) {
    const SystemTestSpec* test = find_system_test(name);
    REQUIRE(test != nullptr);
    SystemMeasurementSpec spec{test, copies, seconds, {}};
    spec.environment.stop = std::move(stop);
    spec.environment.directory_fd = directory_fd;
    spec.environment.directory = directory;
    spec.environment.file_prefix = ".hostprobe-test";
    spec.environment.shell = "/bin/sh";
    spec.environment.self_exe = "/proc/self/exe";  // the unit tests' main has the helper mode
    spec.environment.process_loops = HOSTPROBE_PROCESS_LOOPS;
    return spec;
}

SystemMeasurementSpec spec_for(const std::string& name, const WorkTree& work, std::stop_token stop,
                               size_t copies = 1, double seconds = 0.2) {
    return spec_for(name, work.handle.fd(), work.root(), std::move(stop), copies, seconds);
}

// Lowest rates any machine of the last decade reaches in 0.2 s, per test; generous on purpose
// (sanitizer builds are several times slower), so only a broken loop falls below them.
double plausible_floor(std::string_view name) {
    if (name == "dhrystone") return 10000;  // loops/s
    if (name == "whetstone") return 1;      // MWIPS
    if (name == "execl" || name == "shell_1" || name == "shell_8") return 0.5;
    if (name == "spawn") return 5;
    return 100;  // KBps, lps
}

}  // namespace

TEST_CASE("every system test gives a plausible positive figure in 0.2 s") {
    WorkTree work;
    std::stop_source stop;
    for (const auto& test : system_test_specs()) {
        if (test.selector == "shell" && !have_shell()) continue;
        CAPTURE(test.name);
        auto measured = measure_system_test(
            spec_for(std::string(test.name), work, stop.get_token()), [](double) {});
        REQUIRE(measured.ok());
        CHECK_FALSE(measured->partial);
        CHECK(measured->valid);
        CHECK(measured->copies == 1);
        CHECK(measured->value > plausible_floor(test.name));
        CHECK(measured->value < 1e12);
        // Each copy's clock starts when it starts working, after its deadline was set: a helper
        // at nice 10 on a loaded machine can start 50 ms late (CI saw 0.148 s for file copy).
        CHECK(measured->seconds > 0.1);
        CHECK(measured->seconds < 10);  // an exec or a script may end past the deadline
        CHECK(testing::entry_count(work.root()) == 0);
        CHECK(app::current_children().empty());
    }
}

TEST_CASE("copies run at once and their rates add up") {
    WorkTree work;
    std::stop_source stop;
    for (const char* name : {"syscall", "spawn", "context_switch", "file_copy_256"}) {
        CAPTURE(name);
        auto measured =
            measure_system_test(spec_for(name, work, stop.get_token(), 2), [](double) {});
        REQUIRE(measured.ok());
        CHECK(measured->copies == 2);
        CHECK(measured->value > plausible_floor(name));
        CHECK(testing::entry_count(work.root()) == 0);
    }
    CHECK(app::current_children().empty());
}

TEST_CASE("a stop mid-test ends it promptly, with no child process and no file left") {
    std::vector<std::string> names = {"spawn", "context_switch", "execl", "file_copy_4096", "pipe"};
    if (have_shell()) names.push_back("shell_8");
    for (const auto& name : names) {
        CAPTURE(name);
        WorkTree work;
        std::stop_source stop;
        const auto spec = spec_for(name, work, stop.get_token(), 2, 60);
        std::atomic<bool> timing{false};  // the first tick comes from inside the timed part
        auto measuring = std::async(std::launch::async, [&] {
            return measure_system_test(spec, [&](double) { timing = true; });
        });
        // Stop once the test is under way: its helpers are up, the files exist (the copy test)
        // and the timed loops run (the gate is open: the helpers fork and copy).
        REQUIRE(testing::eventually([&] {
            if (!timing || app::current_children().size() < 2) return false;
            return name != "file_copy_4096" || testing::entry_count(work.root()) > 0;
        }));
        const std::vector<pid_t> started = testing::children_of(::getpid(), true);
        const auto stopped_at = std::chrono::steady_clock::now();
        stop.request_stop();
        REQUIRE(measuring.wait_for(20s) == std::future_status::ready);
        CHECK(std::chrono::steady_clock::now() - stopped_at < 5s);
        auto measured = measuring.get();
        REQUIRE(measured.ok());
        CHECK(measured->partial);
        CHECK(app::current_children().empty());
        for (pid_t pid : started) {  // the helpers and what they started; orphans are reaped
            CAPTURE(pid);            // by init, so allow it a moment
            CHECK(testing::eventually([&] { return testing::process_gone(pid); }, 10s));
        }
        CHECK(testing::entry_count(work.root()) == 0);
    }
}

TEST_CASE("the shell tests say why when there is no shell") {
    CHECK(shell_unavailable("/bin/sh-that-is-not-there")
              .value()
              .find("no shell at /bin/sh-that-is-not-there") != std::string::npos);
    CHECK(shell_unavailable("").has_value());
    WorkTree work;
    std::stop_source stop;
    auto spec = spec_for("shell_1", work, stop.get_token());
    spec.environment.shell = "/bin/sh-that-is-not-there";
    auto measured = measure_system_test(spec, [](double) {});
    REQUIRE_FALSE(measured.ok());
    CHECK(measured.error().code == ErrorCode::unavailable);
}

TEST_CASE("Dhrystone and Whetstone check their own arithmetic") {
    int batches = 0;
    const DhrystoneRun dhrystone = run_dhrystone([&] { return ++batches >= 3; });
    CHECK(dhrystone.valid);
    CHECK(dhrystone.loops == 3 * kDhrystoneBatch);
    CHECK(dmips(dhrystone.loops_per_second()) > 0);
    int passes = 0;
    const WhetstoneRun whetstone = run_whetstone([&] { return ++passes >= 2; });
    CHECK(whetstone.valid);
    CHECK(whetstone.passes == 2);
    CHECK(whetstone.mwips == doctest::Approx(whetstone_mwips(2, whetstone.seconds)));
}

TEST_CASE("a copy whose set-up fails reports why, and nothing waits for it") {
    std::stop_source stop;
    auto measured = measure_system_test(
        spec_for("file_copy_1024", -1, "/nonexistent-directory", stop.get_token(), 2),
        [](double) {});
    REQUIRE_FALSE(measured.ok());
    CHECK(measured.error().message.find("cannot create /nonexistent-directory/") !=
          std::string::npos);
    CHECK(app::current_children().empty());
}
