#include "probes/system/copy_helper.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/strings.hpp"
#include "probes/system/pipe_io.hpp"

namespace hostprobe::probes {

namespace {

struct ReportHeader {
    uint8_t ok;
    uint8_t valid;
    int32_t error_code;  // ErrorCode, when not ok
    double amount;
    double seconds;
    uint32_t error_bytes;
};

std::optional<int> parse_fd(const char* text) {
    auto value = parse_uint64(text);
    if (!value || *value > 1'000'000) return std::nullopt;
    return static_cast<int>(*value);
}

// The work directory's descriptor, or -1 for none (the tests that write nothing). Close-on-exec
// again: what the helper starts (the shell, the execl chain) has no use for it.
std::optional<int> adopt_directory_fd(const char* text) {
    if (std::strcmp(text, "-1") == 0) return -1;
    auto fd = parse_fd(text);
    if (fd && ::fcntl(*fd, F_SETFD, FD_CLOEXEC) != 0) return std::nullopt;
    return fd;
}

// SIGTERM asks the copy to stop. A handler, not a watcher thread: the helper must stay
// single-threaded, or every fork it makes pays for shooting down the other thread's TLB (the
// spawn test ran at half the rate of a C program). A handler can only reach static storage;
// request_stop() is safe in it here because nothing in a helper registers a stop_callback, so
// it is an atomic update and an uncontended lock of an empty callback list.
std::stop_source& sigterm_stop_source() {
    static std::stop_source source;
    return source;
}

extern "C" void request_stop_on_sigterm(int) {
    sigterm_stop_source().request_stop();
}

std::stop_token stop_on_sigterm() {
    std::stop_token token = sigterm_stop_source().get_token();
    struct sigaction action {};
    action.sa_handler = request_stop_on_sigterm;
    action.sa_flags = SA_RESTART;  // a loop's read or write goes on; the loop then sees the stop
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    return token;
}

}  // namespace

std::vector<std::string> copy_helper_command_line(const std::string& program,
                                                  const CopyHelperArguments& arguments,
                                                  int control_fd, int report_fd) {
    return {program,
            kCopyHelperCommand,
            arguments.test,
            std::to_string(control_fd),
            std::to_string(report_fd),
            std::to_string(arguments.directory_fd),
            arguments.directory,
            arguments.file_prefix,
            arguments.shell,
            arguments.process_loops};
}

std::string encode_copy_report(const Result<CopyCount>& count) {
    ReportHeader header{};
    std::string error;
    if (count) {
        header = {1, static_cast<uint8_t>(count->valid ? 1 : 0), 0, count->amount, count->seconds,
                  0};
    } else {
        error = count.error().message;
        header.error_code = static_cast<int32_t>(count.error().code);
        header.error_bytes = static_cast<uint32_t>(error.size());
    }
    std::string bytes(reinterpret_cast<const char*>(&header), sizeof header);
    return bytes + error;
}

std::optional<Result<CopyCount>> decode_copy_report(const std::string& bytes) {
    ReportHeader header{};
    if (bytes.size() < sizeof header) return std::nullopt;
    std::memcpy(&header, bytes.data(), sizeof header);
    if (bytes.size() < sizeof header + header.error_bytes) return std::nullopt;
    if (header.ok == 0) {
        return Result<CopyCount>(Error{static_cast<ErrorCode>(header.error_code),
                                       bytes.substr(sizeof header, header.error_bytes)});
    }
    return Result<CopyCount>(CopyCount{header.amount, header.seconds, header.valid != 0});
}

std::optional<int> run_copy_helper(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], kCopyHelperCommand) != 0) return std::nullopt;
    const bool complete = argc == 10;
    const SystemTestSpec* test = complete ? find_system_test(argv[2]) : nullptr;
    const auto control = complete ? parse_fd(argv[3]) : std::nullopt;
    const auto report = complete ? parse_fd(argv[4]) : std::nullopt;
    const auto directory_fd = complete ? adopt_directory_fd(argv[5]) : std::nullopt;
    if (test == nullptr || !control || !report || !directory_fd) {
        static constexpr char kUsage[] =
            "hostprobe: __system-copy is the system probe's helper, not a command\n";
        (void)!::write(2, kUsage, sizeof kUsage - 1);
        return 2;
    }
    CopyEnvironment environment;
    environment.stop = stop_on_sigterm();
    environment.directory_fd = *directory_fd;
    environment.directory = argv[6];
    environment.file_prefix = argv[7];
    environment.shell = argv[8];
    environment.process_loops = argv[9];

    auto prepared = prepare_test_copy(*test, environment);
    if (!prepared) {
        const std::string encoded = "R" + encode_copy_report(prepared.error());
        return write_all(*report, encoded.data(), encoded.size()) ? 0 : 1;
    }
    if (!write_all(*report, "R", 1)) return 1;
    int64_t duration_ns = 0;
    if (!read_all(*control, &duration_ns, sizeof duration_ns)) return 0;  // cancelled first
    environment.deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(duration_ns);
    const std::string encoded = encode_copy_report((*prepared)->run(environment));
    return write_all(*report, encoded.data(), encoded.size()) ? 0 : 1;
}

std::optional<int> run_system_helper(int argc, char** argv) {
    return run_copy_helper(argc, argv);
}

}  // namespace hostprobe::probes
