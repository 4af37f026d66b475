#include "probes/system/child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/unique_fd.hpp"

namespace hostprobe::probes {

Result<ChildProcess> ChildProcess::adopt(pid_t pid, core::OwnedChildren* owned, bool own_group,
                                         const std::unique_lock<std::mutex>& lock) {
    if (pid < 0)
        return make_error(ErrorCode::unavailable,
                          std::string("cannot fork: ") + std::strerror(errno));
    // Also here, so that a kill of the group cannot come before the child made it.
    if (own_group) (void)::setpgid(pid, pid);
    if (owned) owned->claim(pid, lock);
    return ChildProcess(pid, owned, own_group);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), owned_(other.owned_), own_group_(other.own_group_), reaped_(other.reaped_) {
    other.reaped_ = true;
}

ChildProcess::~ChildProcess() {
    if (!reaped_) kill_and_wait();
}

int ChildProcess::wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    if (owned_) owned_->release(pid_);
    return status;
}

std::optional<int> ChildProcess::wait_unless(const std::stop_token& stop) {
    // A pidfd turns "the child ended" into something poll() can wait for next to a timeout;
    // without one (kernels before 5.3) the child is looked at every millisecond.
    core::UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
    while (!stop.stop_requested()) {
        int status = 0;
        const pid_t ended = ::waitpid(pid_, &status, WNOHANG);
        if (ended == pid_) {
            reaped_ = true;
            if (owned_) owned_->release(pid_);
            return status;
        }
        if (pidfd) {
            pollfd ended_event{pidfd.get(), POLLIN, 0};
            (void)::poll(&ended_event, 1, 50);
        } else {
            ::usleep(1000);
        }
    }
    pidfd.reset();
    kill_and_wait();
    return std::nullopt;
}

void ChildProcess::kill_and_wait() {
    if (reaped_) return;
    (void)::kill(own_group_ ? -pid_ : pid_, SIGKILL);
    wait();
    if (!own_group_) return;
    // The group's other members (a shell's commands) were orphaned: whoever reaps orphans (init,
    // or this agent as PID 1) does so shortly. Wait for that, so that none of them can still
    // finish a file it was creating after the caller cleaned up; a second at most.
    for (int waited_ms = 0; waited_ms < 1000; ++waited_ms) {
        if (::kill(-pid_, 0) != 0 && errno == ESRCH) return;
        ::usleep(1000);
    }
}

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
    return "ended with wait status " + std::to_string(status);
}

}  // namespace hostprobe::probes
