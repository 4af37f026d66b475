// SignalWatcher: what each signal means, and that every signal of the set reaches its handler
// instead of ending the process.
#include "app/signal_watcher.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

using namespace hostprobe::app;

TEST_CASE("every signal whose default ends the process is in the set, named, with a meaning") {
    const std::vector<int> signals = terminating_signals();
    const std::set<int> unique(signals.begin(), signals.end());
    CHECK(unique.size() == signals.size());
    for (const int number : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
                             SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR, SIGSTKFLT, SIGIO}) {
        CAPTURE(number);
        CHECK(unique.count(number) == 1);
    }
    for (int number = SIGRTMIN; number <= SIGRTMAX; ++number)
        CHECK(unique.count(number) == 1);
    for (const int number : signals)
        CHECK(signal_name(number).rfind("SIG", 0) == 0);
    CHECK(signal_name(SIGHUP) == "SIGHUP");
    CHECK(signal_name(SIGRTMIN) == "SIGRTMIN");
    CHECK(signal_name(SIGRTMIN + 3) == "SIGRTMIN+3");
    CHECK(signal_name(SIGSEGV) == "signal " + std::to_string(SIGSEGV));  // not ours to handle
}

TEST_CASE("what signals mean to the daemon and to a foreground command") {
    for (const auto context : {SignalContext::daemon, SignalContext::foreground}) {
        for (const int number : {SIGINT, SIGTERM, SIGQUIT, SIGXCPU, SIGPWR})
            CHECK(signal_meaning(number, context) == SignalMeaning::shut_down);
        for (const int number : {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ, SIGRTMIN, SIGRTMAX})
            CHECK(signal_meaning(number, context) == SignalMeaning::ignore);
    }
    // A daemon has no configuration to reload; a command whose terminal hung up stops.
    CHECK(signal_meaning(SIGHUP, SignalContext::daemon) == SignalMeaning::ignore);
    CHECK(signal_meaning(SIGHUP, SignalContext::foreground) == SignalMeaning::shut_down);
}

namespace {

// In a child process (the watcher blocks signals in the thread that makes it, for good):
// sends each signal of the set to itself and waits for its handler. 0, or what went wrong.
int send_every_signal_to_a_watcher() {
    std::array<std::atomic<int>, 128> shut_down{};
    std::array<std::atomic<int>, 128> ignored{};
    SignalHandlers handlers;
    handlers.shut_down = [&](int number) { ++shut_down.at(static_cast<size_t>(number)); };
    handlers.ignored = [&](int number) { ++ignored.at(static_cast<size_t>(number)); };
    const SignalWatcher watcher(SignalContext::daemon, std::move(handlers));
    // glibc's cancellation signal, below SIGRTMIN: its default would end the process.
    ::kill(::getpid(), 32);
    for (const int number : terminating_signals()) {
        ::kill(::getpid(), number);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        const auto index = static_cast<size_t>(number);
        while (shut_down[index] + ignored[index] == 0) {
            if (std::chrono::steady_clock::now() > deadline) return 1;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const bool shuts_down =
            signal_meaning(number, SignalContext::daemon) == SignalMeaning::shut_down;
        if (shut_down[index] != (shuts_down ? 1 : 0) || ignored[index] != (shuts_down ? 0 : 1))
            return 2;
    }
    return 0;
}

}  // namespace

TEST_CASE("the watcher hands every signal of the set to its handler; none ends the process") {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) ::_exit(send_every_signal_to_a_watcher());
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK_MESSAGE(WIFEXITED(status),
                  "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
    CHECK(WEXITSTATUS(status) == 0);
}
