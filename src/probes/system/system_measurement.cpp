#include "probes/system/system_measurement.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <thread>
#include <vector>

#include "probes/common/start_gate.hpp"
#include "probes/system/child_process.hpp"
#include "probes/system/copy_helper.hpp"
#include "probes/system/pipe_io.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

// A stopped helper gets this long to report what it has before it is killed.
constexpr auto kStopGrace = std::chrono::seconds(5);

// Counts the gate's `ready` down exactly once, on every path out of a copy.
class ReadyOnce {
  public:
    explicit ReadyOnce(StartGate& gate) : gate_(gate) {}
    ~ReadyOnce() { count_down(); }
    ReadyOnce(const ReadyOnce&) = delete;
    ReadyOnce& operator=(const ReadyOnce&) = delete;
    void count_down() {
        if (!done_) gate_.ready.count_down();
        done_ = true;
    }

  private:
    StartGate& gate_;
    bool done_ = false;
};

Error helper_error(const SystemMeasurementSpec& spec, const std::string& what) {
    return Error{ErrorCode::internal, "the " + std::string(spec.test->name) + " helper " + what};
}

// Waits up to 50 ms for `fd` to have something; reads it into `into`. False at its end.
bool read_some(int fd, std::string& into) {
    pollfd readable{fd, POLLIN, 0};
    const int ready = ::poll(&readable, 1, 50);
    if (ready <= 0) return true;  // nothing yet (or EINTR): the caller looks again
    char buffer[4096];
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) return errno == EINTR || errno == EAGAIN;
    if (got == 0) return false;
    into.append(buffer, static_cast<size_t>(got));
    return true;
}

Result<ChildProcess> start_helper(const SystemMeasurementSpec& spec, size_t index,
                                  const Pipe& control, const Pipe& report) {
    const CopyEnvironment& environment = spec.environment;
    const CopyHelperArguments arguments{
        std::string(spec.test->name),
        environment.directory_fd,
        environment.directory,
        environment.file_prefix + "-" + std::string(spec.test->name) + "-" + std::to_string(index),
        environment.shell,
        environment.process_loops};
    std::vector<std::string> words = copy_helper_command_line(
        environment.self_exe, arguments, control.read_end(), report.write_end());
    std::vector<char*> argv;
    for (auto& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    const int keep_control = control.read_end(), keep_report = report.write_end();
    const int keep_directory = environment.directory_fd;
    // Its own process group: a kill reaches whatever the copy started too.
    return ChildProcess::start(environment.owned_children, true, [&] {
        // Only this child's copies of the descriptors lose close-on-exec; the agent's stay.
        if (::fcntl(keep_control, F_SETFD, 0) != 0 || ::fcntl(keep_report, F_SETFD, 0) != 0)
            return 126;
        if (keep_directory >= 0 && ::fcntl(keep_directory, F_SETFD, 0) != 0) return 126;
        ::execv(argv[0], argv.data());
        return 127;
    });
}

// One copy, in its helper process: started, held at the gate until every copy is ready, then
// run for the duration, stopped with SIGTERM when the run is stopped.
Result<CopyCount> run_copy(const SystemMeasurementSpec& spec, StartGate& gate, size_t index) {
    ReadyOnce ready(gate);
    const std::stop_token& stop = spec.environment.stop;
    auto control = Pipe::open_socket_pair();  // the helper may be gone when it is written to
    if (!control) return control.error();
    auto report = Pipe::open();
    if (!report) return report.error();
    auto helper = start_helper(spec, index, *control, *report);
    if (!helper) return helper.error();
    control->close_read();
    report->close_write();

    std::string received;
    while (received.empty()) {
        if (stop.stop_requested()) return CopyCount{};  // the helper is killed on the way out
        if (!read_some(report->read_end(), received)) {
            return helper_error(spec, "(" + spec.environment.self_exe + ") " +
                                          describe_wait_status(helper->wait()));
        }
    }
    received.erase(0, 1);  // 'R'
    ready.count_down();
    gate.go.wait();
    const int64_t duration_ns = std::max<int64_t>(0, gate.deadline_ns.load() - steady_now_ns());
    // A helper whose set-up failed has reported already, and is gone: nothing to start.
    if (received.empty() && !send_all(control->write_end(), &duration_ns, sizeof duration_ns)) {
        return errno_error("cannot start the " + std::string(spec.test->name) + " helper");
    }

    std::optional<Clock::time_point> stopped_at;
    while (true) {
        if (auto decoded = decode_copy_report(received)) {
            const int status = helper->wait();
            if (!*decoded) return *decoded;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                return helper_error(spec, describe_wait_status(status));
            }
            return *decoded;
        }
        if (stop.stop_requested() && !stopped_at) {
            ::kill(helper->pid(), SIGTERM);  // it stops, cleans up and reports
            stopped_at = Clock::now();
        }
        if (stopped_at && Clock::now() - *stopped_at > kStopGrace) return CopyCount{};
        if (!read_some(report->read_end(), received)) {
            return helper_error(spec, describe_wait_status(helper->wait()) + " before it reported");
        }
    }
}

}  // namespace

Result<SystemMeasurement> measure_system_test(const SystemMeasurementSpec& spec,
                                              const std::function<void(double)>& on_tick) {
    StartGate gate(static_cast<std::ptrdiff_t>(spec.copies));
    std::vector<std::future<Result<CopyCount>>> futures;
    for (size_t i = 0; i < spec.copies; ++i) {
        futures.push_back(
            std::async(std::launch::async, [&spec, &gate, i] { return run_copy(spec, gate, i); }));
    }
    gate.ready.wait();  // every helper is up (or has failed): starting them is not timed
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(spec.seconds));
    gate.deadline_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(end.time_since_epoch()).count();
    gate.go.count_down();

    const std::stop_token& stop = spec.environment.stop;
    while (Clock::now() < end && !stop.stop_requested()) {
        std::this_thread::sleep_for(
            std::min<Clock::duration>(std::chrono::milliseconds(100), end - Clock::now()));
        on_tick(std::min(
            1.0, std::chrono::duration<double>(Clock::now() - start).count() / spec.seconds));
    }

    SystemMeasurement measurement;
    measurement.test = spec.test;
    measurement.copies = spec.copies;
    std::optional<Error> failure;
    for (auto& future : futures) {
        Result<CopyCount> copy = future.get();  // every copy is joined, also after a failure
        if (!copy) {
            if (!failure) failure = copy.error();
            continue;
        }
        if (copy->seconds > 0) measurement.value += copy->amount / copy->seconds;
        measurement.seconds = std::max(measurement.seconds, copy->seconds);
        measurement.valid = measurement.valid && copy->valid;
    }
    if (failure) return *failure;
    if (spec.test->unit == "lpm") measurement.value *= 60;
    measurement.partial = stop.stop_requested();
    return measurement;
}

}  // namespace hostprobe::probes
