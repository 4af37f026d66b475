// The tests that start processes: UnixBench's spawn.c, context1.c, execl.c and the shell
// scripts. Every child is reaped before a copy returns, also when it is stopped early.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/elapsed.hpp"
#include "core/unique_fd.hpp"
#include "probes/storage/directory_handle.hpp"
#include "probes/storage/test_files.hpp"
#include "probes/system/child_process.hpp"
#include "probes/system/execl_helper.hpp"
#include "probes/system/pipe_io.hpp"
#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

// In a forked child: `input` becomes 0, `output` 1, and every other descriptor is closed.
// Async-signal-safe (no allocation).
bool keep_only_descriptors(int input, int output) {
    if (output == 0) {  // moved out of the way before 0 is overwritten
        output = ::fcntl(output, F_DUPFD, 3);
        if (output < 0) return false;
    }
    if (::dup2(input, 0) < 0 || ::dup2(output, 1) < 0) return false;
    if (::syscall(SYS_close_range, 2u, ~0u, 0u) == 0) return true;
    for (int fd = 2; fd < 65536; ++fd)  // kernels before 5.9
        ::close(fd);
    return true;
}

// The shell script of UnixBench's tst.sh, `$1` times at once (multi.sh). It starts in its
// work directory (fchdir to the descriptor) and names nothing outside it, so no path above the
// directory is ever resolved.
constexpr const char* kShellScript = R"(n=$1; i=0; pids=
while [ "$i" -lt "$n" ]; do
  ( sort <sort.src >sort.$i && od sort.$i | sort -n -k 1 >od.$i &&
    grep the sort.$i | tee grep.$i | wc -l >wc.$i; s=$?
    rm -f sort.$i od.$i grep.$i wc.$i; exit $s ) &
  pids="$pids $!"; i=$((i+1))
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
exit $rc
)";

// UnixBench's sort.src is a page of English text; sort, od and grep get the same kind of work.
std::string sort_source() {
    static constexpr const char* kWords[] = {
        "the",    "quick",  "brown",      "fox",     "jumps",  "over", "lazy",    "dog",
        "system", "bench",  "mark",       "index",   "shell",  "pipe", "process", "file",
        "copy",   "kernel", "throughput", "context", "switch", "call", "score",   "baseline"};
    std::string text;
    uint32_t state = 12345;
    for (int line = 0; line < 400; ++line) {
        for (int word = 0; word < 8; ++word) {
            state = state * 1103515245u + 12345u;
            text += kWords[(state >> 16) % (sizeof kWords / sizeof *kWords)];
            text += word == 7 ? '\n' : ' ';
        }
    }
    return text;
}

}  // namespace

Result<CopyCount> spawn_copy(const CopyEnvironment& environment) {
    // spawn.c: fork, the child exits at once, the parent waits; per loop.
    const auto start = Clock::now();
    uint64_t loops = 0;
    while (keep_going(environment)) {
        auto child = ChildProcess::start(environment.owned_children, false, [] { return 0; });
        if (!child) return child.error();
        const int status = child->wait();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return Error{ErrorCode::internal, "a spawned child " + describe_wait_status(status)};
        ++loops;
    }
    return CopyCount{static_cast<double>(loops), core::seconds_since(start)};
}

Result<CopyCount> context_switch_copy(const CopyEnvironment& environment) {
    // context1.c: the parent sends a counter down one pipe, the child sends it back up another;
    // one round trip per loop. The child ends when its pipe closes.
    auto down = Pipe::open();
    if (!down) return down.error();
    auto up = Pipe::open();
    if (!up) return up.error();
    const int child_reads = down->read_end(), child_writes = up->write_end();
    auto child = ChildProcess::start(environment.owned_children, false, [=] {
        // Only its own two ends stay open: the parent's write end (or another copy's) held
        // here would keep the child from ever seeing the end of its input.
        if (!keep_only_descriptors(child_reads, child_writes)) return 1;
        uint64_t value = 0;
        while (::read(0, &value, sizeof value) == sizeof value) {
            if (::write(1, &value, sizeof value) != sizeof value) return 1;
        }
        return 0;
    });
    if (!child) return child.error();
    down->close_read();
    up->close_write();

    const auto start = Clock::now();
    uint64_t loops = 0;
    bool broken = false;
    while (keep_going(environment) && !broken) {
        for (int i = 0; i < 16; ++i) {
            uint64_t echoed = 0;
            if (::write(down->write_end(), &loops, sizeof loops) != sizeof loops ||
                ::read(up->read_end(), &echoed, sizeof echoed) != sizeof echoed ||
                echoed != loops) {
                broken = true;
                break;
            }
            ++loops;
        }
    }
    const double seconds = core::seconds_since(start);
    down->close_write();  // the child sees the end of its input and exits
    const int status = child->wait();
    if (broken)
        return Error{ErrorCode::internal, "the ping-pong child " + describe_wait_status(status)};
    return CopyCount{static_cast<double>(loops), seconds};
}

Result<CopyCount> execl_copy(const CopyEnvironment& environment) {
    // execl.c: a process replaces itself with a new copy of the program, again and again, for
    // the whole duration; execs per second. Here the agent's own binary in its helper mode
    // (see execl_helper.hpp) counts its generations and reports the count through a pipe.
    auto report = Pipe::open();
    if (!report) return report.error();
    const auto deadline_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 environment.deadline.time_since_epoch())
                                 .count();
    const ExeclArguments first{report->write_end(), 1, deadline_ns};
    ExeclCommandLine command(environment.self_exe,
                             first);  // built before the fork: no malloc after
    const auto start = Clock::now();
    auto child = ChildProcess::start(environment.owned_children, false, [&] {
        // The write end has to survive the exec; everything else stays close-on-exec.
        if (::fcntl(report->write_end(), F_SETFD, 0) != 0) return 126;
        ::execv(command.path(), command.argv());
        return 127;
    });
    if (!child) return child.error();
    report->close_write();

    uint64_t generations = 0;
    size_t got = 0;
    char* into = reinterpret_cast<char*>(&generations);
    while (got < sizeof generations) {
        if (environment.stop.stop_requested()) {
            child->kill_and_wait();
            return CopyCount{0, core::seconds_since(start)};
        }
        pollfd readable{report->read_end(), POLLIN, 0};
        const int ready = ::poll(&readable, 1, 50);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return errno_error("poll");
        if (ready == 0) continue;
        const ssize_t read_now = ::read(report->read_end(), into + got, sizeof generations - got);
        if (read_now < 0 && errno == EINTR) continue;
        if (read_now <= 0) {
            const int status = child->wait();
            return Error{ErrorCode::internal, "the execl helper (" + environment.self_exe + ") " +
                                                  describe_wait_status(status)};
        }
        got += static_cast<size_t>(read_now);
    }
    const double seconds = core::seconds_since(start);
    const int status = child->wait();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return Error{ErrorCode::internal, "the execl helper " + describe_wait_status(status)};
    return CopyCount{static_cast<double>(generations), seconds};
}

Result<CopyCount> shell_copy(const CopyEnvironment& environment, int concurrent) {
    // UnixBench's Shell Scripts: tst.sh (sort, od, grep, tee, wc over a text file) run
    // `concurrent` times at once by multi.sh; loops per minute.
    if (auto why = shell_unavailable(environment.shell)) return Error{ErrorCode::unavailable, *why};
    // A subdirectory of the work directory, made, filled and removed relative to descriptors.
    const std::string name = environment.file_prefix + "-sh";
    const std::string work = environment.directory + "/" + name;  // what messages name
    if (::mkdirat(environment.directory_fd, name.c_str(), 0700) != 0)
        return errno_error("cannot create " + work);
    struct RemoveWork {
        int parent;
        std::string name;
        // With whatever a killed script left in it.
        ~RemoveWork() { remove_directory_tree(parent, name); }
    } remove_work{environment.directory_fd, name};
    const int opened = ::openat(environment.directory_fd, name.c_str(),
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (opened < 0) return errno_error("cannot open " + work);
    const DirectoryHandle directory = DirectoryHandle::adopt(opened, work);
    {
        const std::string source = sort_source();
        const core::UniqueFd file(::openat(directory.fd(), "sort.src",
                                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                           0600));
        if (!file) return errno_error("cannot create " + work + "/sort.src");
        const bool written = ::write(file.get(), source.data(), source.size()) ==
                             static_cast<ssize_t>(source.size());
        if (!written) return errno_error("cannot write " + work + "/sort.src");
    }
    const std::string count = std::to_string(concurrent);
    const char* const argv[] = {
        environment.shell.c_str(), "-c", kShellScript, "sh", count.c_str(), nullptr};
    const int directory_fd = directory.fd();
    const auto start = Clock::now();
    uint64_t loops = 0;
    while (keep_going(environment)) {
        auto child = ChildProcess::start(environment.owned_children, true, [&] {
            if (::fchdir(directory_fd) != 0) return 126;
            const int null = ::open("/dev/null", O_RDWR);
            if (null >= 0) {
                ::dup2(null, 0);
                ::dup2(null, 1);
                ::dup2(null, 2);
            }
            ::execv(argv[0], const_cast<char* const*>(argv));
            return 127;
        });
        if (!child) return child.error();
        const std::optional<int> status = child->wait_unless(environment.stop);
        if (!status) return CopyCount{static_cast<double>(loops), core::seconds_since(start)};
        if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
            return Error{ErrorCode::internal,
                         "the shell script " + describe_wait_status(*status) +
                             " (it needs sort, od, grep, tee and wc on the PATH)"};
        }
        ++loops;
    }
    return CopyCount{static_cast<double>(loops), core::seconds_since(start)};
}

}  // namespace hostprobe::probes
