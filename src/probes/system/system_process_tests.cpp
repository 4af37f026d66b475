// The tests that start processes: UnixBench's spawn.c, context1.c, execl.c and the shell
// scripts. Every child is reaped before a copy returns, also when it is stopped early.
#include <fcntl.h>
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
#include "probes/system/pipe_io.hpp"
#include "probes/system/process_loops_runner.hpp"
#include "probes/system/shell_test_files.hpp"
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

// `contents` as a new file `name` in `directory`.
Status write_new_file(const DirectoryHandle& directory, const std::string& name,
                      const std::string& contents) {
    const core::UniqueFd file(::openat(directory.fd(), name.c_str(),
                                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file || !write_all(file.get(), contents.data(), contents.size()))
        return errno_error("cannot write " + directory.path() + "/" + name);
    return Ok{};
}

}  // namespace

Result<CopyCount> spawn_copy(const CopyEnvironment& environment) {
    // spawn.c: fork, the child exits at once, the parent waits; per loop. The small helper
    // forks, as UnixBench's small program does: forking the agent's binary copies more.
    auto report = run_process_loops(environment, {.mode = "spawn"});
    if (!report) return report.error();
    return CopyCount{static_cast<double>(report->loops), report->seconds};
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
    // the whole duration; execs per second. The program is the small helper, as small as
    // UnixBench's execl: what an exec costs depends on what the program loads.
    auto report = run_process_loops(environment, {.mode = "execl"});
    if (!report) return report.error();
    return CopyCount{static_cast<double>(report->loops), report->seconds};
}

Result<CopyCount> shell_copy(const CopyEnvironment& environment, int concurrent) {
    // UnixBench's Shell Scripts: tst.sh (sort, od, grep, tee, wc over sort.src 20 times over)
    // run `concurrent` times at once by multi.sh, by the looper; loops per minute.
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
    for (const auto& [file, contents] :
         {std::pair<std::string, std::string>{"sort.src", shell_sort_source()},
          {"tst.sh", kShellTestScript},
          {"multi.sh", kShellMultiScript}}) {
        if (auto written = write_new_file(directory, file, contents); !written)
            return written.error();
    }
    const ProcessLoopsRequest request{
        .mode = "looper",
        .program = {environment.shell, "multi.sh", std::to_string(concurrent), environment.shell},
        .working_directory_fd = directory.fd()};
    auto report = run_process_loops(environment, request);
    if (!report) return report.error();
    if (report->failed_status >= 0) {
        return Error{ErrorCode::internal,
                     "the shell script " + describe_wait_status(report->failed_status) +
                         " (it needs cat, seq, sort, od, grep, tee, wc and rm on the PATH)"};
    }
    return CopyCount{static_cast<double>(report->loops), report->seconds};
}

}  // namespace hostprobe::probes
