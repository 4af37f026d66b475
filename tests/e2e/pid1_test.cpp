// The agent as a container's PID 1: it adopts the container's orphans and must reap them, and
// SIGTERM must still stop it (PID 1 gets no default signal actions). A PID namespace made with
// unshare stands in for the container.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/process_tree.hpp"
#include "support/skip.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

char state_of(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto after_comm = line.rfind(") ");
    return after_comm == std::string::npos ? '?' : line[after_comm + 2];
}

bool can_make_pid_namespaces() {
    return geteuid() == 0 && access("/usr/bin/unshare", X_OK) == 0 &&
           access("/usr/bin/nsenter", X_OK) == 0 &&
           run_to_end("/usr/bin/unshare", {"--fork", "--pid", "--mount-proc", "true"})
                   .status.code == 0;
}

}  // namespace

TEST_CASE("as PID 1 the agent reaps adopted orphans and exits 0 on SIGTERM") {
    if (!can_make_pid_namespaces()) SKIP_TEST("making a PID namespace needs root and unshare");
    Process init("/usr/bin/unshare", {"--fork", "--pid", "--mount-proc", "--kill-child", binary(),
                                      "serve", "--listen", "127.0.0.1:0"});
    REQUIRE_MESSAGE(init.wait_for_port(10s).has_value(), init.errors());
    const auto agents = children_of(init.pid());
    REQUIRE(agents.size() == 1);
    const pid_t agent = agents.front();

    // The shell's parent (nsenter) is outside the namespace, so when the shell exits its
    // background child is handed to the namespace's init: the agent.
    const auto orphan_maker = run_to_end(
        "/usr/bin/nsenter",
        {"--target", std::to_string(agent), "--pid", "--", "/bin/sh", "-c", "sleep 0.2 & exit 0"});
    REQUIRE(orphan_maker.status.code == 0);
    CHECK_MESSAGE(
        eventually(
            [&] { return init.errors().find("reaped orphaned processes") != std::string::npos; },
            10s),
        init.errors());
    for (pid_t child : children_of(agent))
        CHECK_MESSAGE(state_of(child) != 'Z', child);

    kill(agent, SIGTERM);
    const auto status = init.wait(5s);
    CHECK(status.exited);
    CHECK(status.code == 0);
}
