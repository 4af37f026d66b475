// ChildProcess: a child starts as any process would, whatever the agent's threads block or ignore.
#include "probes/system/child_process.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <thread>

using hostprobe::probes::ChildProcess;

namespace {

// 0 when nothing is blocked and SIGPIPE has its default action; a code saying what was wrong.
int inherited_signal_state() {
    sigset_t blocked;
    sigemptyset(&blocked);
    (void)::sigprocmask(SIG_SETMASK, nullptr, &blocked);
    for (const int number : {SIGTERM, SIGHUP, SIGUSR1, SIGPIPE}) {
        if (sigismember(&blocked, number)) return 10 + number;
    }
    struct sigaction pipe_action {};
    (void)::sigaction(SIGPIPE, nullptr, &pipe_action);
    return pipe_action.sa_handler == SIG_DFL ? 0 : 1;
}

}  // namespace

TEST_CASE("a child starts with no signal blocked and SIGPIPE at its default") {
    // As in the agent: the watcher's signals blocked, SIGPIPE ignored (cpp-httplib does so).
    // On a thread of its own, so that the test process keeps its own mask.
    int status = -1;
    std::thread parent([&] {
        sigset_t set;
        sigemptyset(&set);
        for (const int number : {SIGTERM, SIGHUP, SIGUSR1, SIGPIPE})
            sigaddset(&set, number);
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        struct sigaction ignore {
        }, previous{};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &previous);
        auto child = ChildProcess::start(nullptr, false, [] { return inherited_signal_state(); });
        REQUIRE(child.ok());
        status = child->wait();
        ::sigaction(SIGPIPE, &previous, nullptr);
    });
    parent.join();
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
