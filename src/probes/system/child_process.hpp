// A child the system probe forks and always reaps. The agent is multithreaded, so between fork
// and exec or _exit a child may only make async-signal-safe calls (another thread may have held
// malloc's lock at the fork): every child body here is a few syscalls.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <optional>
#include <stop_token>
#include <string>

#include "core/owned_children.hpp"
#include "core/result.hpp"

namespace hostprobe::probes {

class ChildProcess {
  public:
    // The child runs `body` and _exits with what it returns. `own_group` puts it in a process
    // group of its own, so that killing it also kills what it starts (a shell's commands).
    // `owned` (may be null) hides the child from the PID-1 orphan reaper.
    template <typename Body>
    static Result<ChildProcess> start(core::OwnedChildren* owned, bool own_group, Body&& body) {
        auto lock = owned ? owned->claim_lock() : std::unique_lock<std::mutex>();
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid == 0) {
            // Killed with the thread that started it: a copy must not outlive an agent that
            // was killed (kill -9, OOM) and go on measuring, or writing, on its own. The flag
            // survives exec; checked after, in case the parent was gone already.
            (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(1);
            // The agent's threads block the signals its signal watcher collects, and
            // cpp-httplib ignores SIGPIPE (which exec would keep): a child starts with nothing
            // blocked and SIGPIPE at its default, as any process would.
            sigset_t none;
            sigemptyset(&none);
            (void)::sigprocmask(SIG_SETMASK, &none, nullptr);
            struct sigaction default_action {};
            default_action.sa_handler = SIG_DFL;
            (void)::sigaction(SIGPIPE, &default_action, nullptr);
            if (own_group) (void)::setpgid(0, 0);
            ::_exit(body());
        }
        return adopt(pid, owned, own_group, lock);
    }

    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&&) = delete;
    ChildProcess(const ChildProcess&) = delete;
    ~ChildProcess();  // kills and reaps a child still running

    pid_t pid() const { return pid_; }
    // Blocks until the child ends; its wait status (as waitpid gives it).
    int wait();
    // Blocks until the child ends, unless `stop` is requested first: then the child (and its
    // group) is killed and reaped, and there is no status.
    std::optional<int> wait_unless(const std::stop_token& stop);
    // SIGKILL to the child (and its group), then reaps it.
    void kill_and_wait();

  private:
    ChildProcess(pid_t pid, core::OwnedChildren* owned, bool own_group)
        : pid_(pid), owned_(owned), own_group_(own_group) {}
    static Result<ChildProcess> adopt(pid_t pid, core::OwnedChildren* owned, bool own_group,
                                      const std::unique_lock<std::mutex>& lock);

    pid_t pid_;
    core::OwnedChildren* owned_;
    bool own_group_;
    bool reaped_ = false;
};

// A wait status in words: "exited with status 1", "was killed by signal 9".
std::string describe_wait_status(int status);

}  // namespace hostprobe::probes
