// Signals (issue 14, class 4): every catchable signal whose default action would end the process,
// sent to a serving daemon or to `hostprobe run`, either shuts it down cleanly (exit 0 within
// 2 s, the run cancelled and recorded, no test file left) or is ignored (it goes on serving).
// Whichever each one means, none may end the agent with a `.hostprobe-*` file left behind.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "app/signal_watcher.hpp"
#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using hostprobe::app::signal_name;
using hostprobe::app::terminating_signals;
using nlohmann::json;

namespace {

// glibc's own signals below SIGRTMIN (thread cancellation, setuid across threads): a kill from
// outside must not end the agent either.
constexpr int kGlibcCancelSignal = 32;
constexpr int kGlibcSetxidSignal = 33;

bool has_exited(pid_t pid) {
    siginfo_t info{};
    // WNOWAIT: the status stays for Process::wait.
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

// Whether `number` is still pending for the process as a whole (/proc/PID/status ShdPnd).
bool is_pending(pid_t pid, int number) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("ShdPnd:", 0) != 0) continue;
        const uint64_t pending = std::stoull(line.substr(7), nullptr, 16);
        return (pending >> (number - 1)) & 1;
    }
    return false;
}

// The log line that names the signal as acted upon ("shutting down signal=X", "signal ignored
// signal=X"), the name followed by the end of the field; "" when there is none yet.
std::string log_line_naming(const std::string& log, const std::string& name) {
    const std::string field = "signal=" + name;
    for (size_t at = log.find(field); at != std::string::npos; at = log.find(field, at + 1)) {
        const size_t end = at + field.size();
        if (end < log.size() && log[end] != ' ' && log[end] != '\n') continue;
        const size_t line_start = log.rfind('\n', at);
        const size_t begin = line_start == std::string::npos ? 0 : line_start + 1;
        return log.substr(begin, log.find('\n', at) - begin);
    }
    return "";
}

enum class Outcome { kept_serving, exited_cleanly };

// Sends the signal and waits until the agent has acted on it. Checks that it either goes on
// answering /healthz or exits 0 within 2 s with no test file left in `directories`.
Outcome send_and_judge(Daemon& daemon, int number, const std::vector<std::string>& directories) {
    const std::string name = number == kGlibcCancelSignal || number == kGlibcSetxidSignal
                                 ? "signal " + std::to_string(number)
                                 : signal_name(number);
    CAPTURE(name);
    const pid_t pid = daemon.process.pid();
    const auto sent = std::chrono::steady_clock::now();
    daemon.process.signal(number);
    // glibc's signals are handled (and ignored) inside glibc: no log line, only delivery.
    const bool glibc_signal = number == kGlibcCancelSignal || number == kGlibcSetxidSignal;
    std::string line;
    REQUIRE(eventually([&] {
        if (has_exited(pid)) return true;
        if (glibc_signal) return !is_pending(pid, number);
        line = log_line_naming(daemon.process.errors(), name);
        return !line.empty();
    }));
    if (has_exited(pid) || line.find("shutting down") != std::string::npos) {
        const ExitStatus status = daemon.process.wait(5s);
        CHECK_MESSAGE(status.exited, "ended by signal " << -status.code);
        CHECK(status.code == 0);
        CHECK(std::chrono::steady_clock::now() - sent < 2s);
        for (const auto& directory : directories)
            CHECK_FALSE(has_test_files(directory));
        return Outcome::exited_cleanly;
    }
    auto health = daemon.client().Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    CHECK_FALSE(has_exited(pid));
    return Outcome::kept_serving;
}

// SIGTERM to an agent that ignored a signal: it still shuts down cleanly.
void stop_and_check(Daemon& daemon, const std::vector<std::string>& directories) {
    daemon.process.signal(SIGTERM);
    const ExitStatus status = daemon.process.wait(5s);
    CHECK(status.code == 0);
    CHECK(status.waited < 2s);
    for (const auto& directory : directories)
        CHECK_FALSE(has_test_files(directory));
}

std::vector<int> every_signal() {
    std::vector<int> signals = terminating_signals();
    signals.push_back(kGlibcCancelSignal);
    signals.push_back(kGlibcSetxidSignal);
    return signals;
}

std::string disk_body(const std::string& directory) {
    return R"({"probe": "disk", "params": {"directory": ")" + directory +
           R"(", "size": "1m", "bs": "4k", "time_based": true, "runtime": 60, "direct": false}})";
}

// Waits until the run measures (layout done: progress past 10%), its test file in place.
void wait_until_measuring(httplib::Client& client, const std::string& id) {
    REQUIRE(eventually([&] {
        const json run = json::parse(client.Get("/v1/runs/" + id)->body);
        return run["state"] == "running" && run["progress"].get<double>() > 0.1;
    }));
}

// The run's last line in the journal: how it ended, as the next start would restore it.
std::string journal_state(const std::string& state_dir, const std::string& id) {
    std::ifstream journal(state_dir + "/runs.jsonl");
    std::string line, state;
    while (std::getline(journal, line)) {
        const json record = json::parse(line, nullptr, false);
        if (record.is_object() && record.contains("run") && record["run"].value("id", "") == id)
            state = record["run"].value("state", "");
    }
    return state;
}

}  // namespace

TEST_CASE("every signal to an idle daemon: it goes on serving, or exits 0 within 2 s") {
    TempTree disk_dir, temporary;
    const std::vector<std::string> directories = {disk_dir.root(), temporary.root()};
    std::optional<Daemon> daemon;
    int kept = 0, exited = 0;
    for (const int number : every_signal()) {
        if (!daemon)
            daemon.emplace(std::vector<std::string>{"--disk-dir", disk_dir.root()},
                           std::map<std::string, std::string>{{"TMPDIR", temporary.root()}});
        if (send_and_judge(*daemon, number, directories) == Outcome::exited_cleanly) {
            daemon.reset();
            ++exited;
        } else {
            ++kept;
        }
    }
    if (daemon) stop_and_check(*daemon, directories);
    // The set has both kinds: SIGTERM stops, SIGUSR1 does not.
    CHECK(exited > 0);
    CHECK(kept > 0);
}

TEST_CASE("a signal mid disk run: a clean stop with the run recorded, or the run goes on") {
    for (const int number : {SIGTERM, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXCPU,
                             SIGXFSZ, SIGPWR, static_cast<int>(SIGRTMIN), kGlibcCancelSignal}) {
        CAPTURE(number);
        TempTree disk_dir, state_dir, temporary;
        const std::vector<std::string> directories = {disk_dir.root(), temporary.root()};
        Daemon daemon({"--disk-dir", disk_dir.root(), "--state-dir", state_dir.root()},
                      {{"TMPDIR", temporary.root()}});
        auto client = daemon.client();
        auto created = client.Post("/v1/runs", disk_body(disk_dir.root()), "application/json");
        REQUIRE(created);
        const std::string id = json::parse(created->body)["id"];
        wait_until_measuring(client, id);
        REQUIRE(has_test_files(disk_dir.root()));
        if (send_and_judge(daemon, number, directories) == Outcome::exited_cleanly) {
            CHECK(journal_state(state_dir.root(), id) == "cancelled");
            continue;
        }
        const json run = json::parse(client.Get("/v1/runs/" + id)->body);
        CHECK(run["state"] == "running");  // an ignored signal does not disturb the run
        stop_and_check(daemon, directories);
        CHECK(journal_state(state_dir.root(), id) == "cancelled");
    }
}

TEST_CASE("a signal mid system run: its private work directory goes too") {
    for (const int number : {SIGQUIT, SIGHUP}) {
        CAPTURE(number);
        TempTree temporary;
        Daemon daemon({}, {{"TMPDIR", temporary.root()}});
        auto client = daemon.client();
        REQUIRE(client.Post(
            "/v1/runs",
            R"({"probe": "system", "params": {"tests": ["file_copy"], "copies": [1], "seconds": 60}})",
            "application/json"));
        REQUIRE(eventually([&] { return has_test_files(temporary.root()); }));
        if (send_and_judge(daemon, number, {temporary.root()}) == Outcome::kept_serving)
            stop_and_check(daemon, {temporary.root()});
    }
}

TEST_CASE("hostprobe run: a hangup cancels and cleans up, SIGUSR1 is noted and ignored") {
    TempTree directory;
    const std::vector<std::string> args = {
        "run", "disk",         "--directory", directory.root(), "--size", "1m",       "--bs",
        "4k",  "--time_based", "true",        "--runtime",      "60",     "--direct", "false"};
    for (const int number : {SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, kGlibcCancelSignal}) {
        CAPTURE(number);
        Process run(binary(), args);
        REQUIRE(eventually([&] { return has_test_files(directory.root()); }));
        run.signal(number);
        if (number == SIGHUP || number == SIGQUIT) {
            const ExitStatus status = run.wait(5s);
            CHECK(status.exited);
            CHECK(status.code == 130);  // cancelled: the partial result is printed
            CHECK(status.waited < 2s);
        } else {
            if (number == kGlibcCancelSignal) {
                CHECK(eventually([&] { return !is_pending(run.pid(), number); }));
            } else {
                CHECK(eventually([&] {
                    return run.errors().find(signal_name(number) + " ignored") != std::string::npos;
                }));
            }
            CHECK_FALSE(has_exited(run.pid()));
            run.signal(SIGINT);
            CHECK(run.wait(5s).code == 130);
        }
        CHECK(run.output().find("(partial: the run was cancelled)") != std::string::npos);
        CHECK_FALSE(has_test_files(directory.root()));
    }
}
