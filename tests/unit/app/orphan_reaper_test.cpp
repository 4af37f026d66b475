#include "app/orphan_reaper.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace hostprobe::app {

namespace {

// A child that exits at once with `code`; returns when it is a zombie, without reaping it.
pid_t ended_child(int code, OwnedChildren* owner = nullptr) {
    pid_t pid = 0;
    {
        auto lock = owner ? owner->claim_lock() : std::unique_lock<std::mutex>();
        pid = fork();
        if (pid == 0) _exit(code);
        if (owner) owner->claim(pid, lock);
    }
    REQUIRE(pid > 0);
    siginfo_t info{};
    REQUIRE(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) == 0);
    return pid;
}

bool contains(const std::vector<pid_t>& pids, pid_t pid) {
    return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

}  // namespace

TEST_CASE("children are listed from /proc, zombies included, both ways") {
    const pid_t child = ended_child(0);
    CHECK(contains(current_children(), child));
    CHECK(contains(children_from_stat(), child));
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK_FALSE(contains(current_children(), child));
}

TEST_CASE("the reaper waits for an orphan's zombie") {
    OwnedChildren owned;
    const pid_t child = ended_child(3);
    CHECK(reap_orphans(owned) >= 1);
    int status = 0;
    CHECK(waitpid(child, &status, WNOHANG) == -1);
    CHECK(errno == ECHILD);
}

TEST_CASE("the reaper leaves owned children to their owner") {
    OwnedChildren owned;
    const pid_t child = ended_child(5, &owned);
    CHECK(reap_orphans(owned) == 0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WEXITSTATUS(status) == 5);
    owned.release(child);
}

}  // namespace hostprobe::app
