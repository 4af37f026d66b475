#include "probes/system/process_loops_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "probes/system/child_process.hpp"
#include "probes/system/pipe_io.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

// A stopped helper reports within a loop; this long at most, then it is killed.
constexpr auto kHelperStopGrace = std::chrono::seconds(1);

int64_t steady_clock_ns(Clock::time_point point) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(point.time_since_epoch()).count();
}

// An argv or environment built before the fork: the child may not allocate.
class ExecWords {
  public:
    explicit ExecWords(std::vector<std::string> words) : words_(std::move(words)) {
        for (auto& word : words_)
            pointers_.push_back(word.data());
        pointers_.push_back(nullptr);
    }
    char* const* get() { return pointers_.data(); }

  private:
    std::vector<std::string> words_;
    std::vector<char*> pointers_;
};

std::vector<std::string> process_loops_argv(const CopyEnvironment& environment,
                                            const ProcessLoopsRequest& request, int report_fd,
                                            Clock::time_point start) {
    std::vector<std::string> words{environment.process_loops, request.mode,
                                   std::to_string(report_fd),
                                   std::to_string(steady_clock_ns(environment.deadline))};
    if (request.mode == "execl") {
        words.push_back(std::to_string(steady_clock_ns(start)));
        words.emplace_back("1");
    }
    words.insert(words.end(), request.program.begin(), request.program.end());
    return words;
}

std::vector<std::string> helper_environment() {
    const char* path = std::getenv("PATH");
    return {std::string("PATH=") + (path && *path ? path : "/usr/local/bin:/usr/bin:/bin"),
            "LANG=en_US.utf8"};
}

// Reads the whole report unless the helper ends first; a stop request sends SIGTERM once and
// waits kHelperStopGrace for the report. Nothing when there is none.
std::optional<ProcessLoopsReport> read_loops_report(int report_fd, ChildProcess& helper,
                                                    const std::stop_token& stop) {
    ProcessLoopsReport report;
    char* into = reinterpret_cast<char*>(&report);
    size_t got = 0;
    std::optional<Clock::time_point> stop_sent;
    while (got < sizeof report) {
        if (stop.stop_requested() && !stop_sent) {
            (void)::kill(helper.pid(), SIGTERM);
            stop_sent = Clock::now();
        }
        if (stop_sent && Clock::now() - *stop_sent > kHelperStopGrace) return std::nullopt;
        pollfd readable{report_fd, POLLIN, 0};
        const int ready = ::poll(&readable, 1, 50);
        if (ready <= 0) continue;  // a timeout, or EINTR
        const ssize_t read_now = ::read(report_fd, into + got, sizeof report - got);
        if (read_now < 0 && errno == EINTR) continue;
        if (read_now <= 0) return std::nullopt;
        got += static_cast<size_t>(read_now);
    }
    return report;
}

}  // namespace

std::string process_loops_beside(const std::string& self_exe) {
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::canonical(self_exe, error);
    if (error) return {};
    return (resolved.parent_path() / kProcessLoopsProgram).string();
}

std::optional<std::string> process_loops_unavailable(const std::string& path) {
    const std::string what = std::string("the test's helper ") + kProcessLoopsProgram;
    if (path.empty()) return what + " was not found (the agent's own path is unknown)";
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0)
        return what + " is missing: " + path + " (" + std::strerror(errno) + ")";
    if (!S_ISREG(status.st_mode) || ::access(path.c_str(), X_OK) != 0)
        return what + " at " + path + " is not an executable file";
    return std::nullopt;
}

Result<ProcessLoopsReport> run_process_loops(const CopyEnvironment& environment,
                                             const ProcessLoopsRequest& request) {
    if (auto why = process_loops_unavailable(environment.process_loops))
        return Error{ErrorCode::unavailable, *why};
    auto report = Pipe::open();
    if (!report) return report.error();
    const auto start = Clock::now();
    ExecWords argv(process_loops_argv(environment, request, report->write_end(), start));
    ExecWords envp(helper_environment());
    const int report_fd = report->write_end();
    const int directory_fd = request.working_directory_fd;
    auto helper = ChildProcess::start(environment.owned_children, false, [&] {
        if (directory_fd >= 0 && ::fchdir(directory_fd) != 0) return 126;
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, 0);
            ::dup2(null, 1);
            ::dup2(null, 2);
        }
        // The report's end has to survive the exec; everything else stays close-on-exec.
        if (::fcntl(report_fd, F_SETFD, 0) != 0) return 126;
        ::execve(argv.get()[0], argv.get(), envp.get());
        return 127;
    });
    if (!helper) return helper.error();
    report->close_write();

    const std::optional<ProcessLoopsReport> got =
        read_loops_report(report->read_end(), *helper, environment.stop);
    if (!got) {
        if (environment.stop.stop_requested()) {
            helper->kill_and_wait();
            return ProcessLoopsReport{};
        }
        return Error{ErrorCode::internal, "the test's helper " + environment.process_loops + " " +
                                              describe_wait_status(helper->wait()) +
                                              " before it reported"};
    }
    const int status = helper->wait();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return Error{ErrorCode::internal, "the test's helper " + environment.process_loops + " " +
                                              describe_wait_status(status)};
    if (got->failed_errno != 0)
        return Error{ErrorCode::internal, "the test's helper could not fork or exec: " +
                                              std::string(std::strerror(got->failed_errno))};
    return *got;
}

}  // namespace hostprobe::probes
