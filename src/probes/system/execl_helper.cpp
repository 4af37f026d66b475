#include "probes/system/execl_helper.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace hostprobe::probes {

namespace {

bool parse_number(const char* text, long long& value) {
    char* end = nullptr;
    errno = 0;
    value = std::strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0';
}

int64_t monotonic_ns() {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

}  // namespace

ExeclCommandLine::ExeclCommandLine(std::string program, const ExeclArguments& arguments)
    : program_(std::move(program)),
      words_{kExeclHelperCommand, std::to_string(arguments.report_fd),
             std::to_string(arguments.generation), std::to_string(arguments.deadline_ns)} {
    argv_[0] = program_.data();
    for (size_t i = 0; i < words_.size(); ++i)
        argv_[i + 1] = words_[i].data();
    argv_.back() = nullptr;
}

std::optional<int> run_execl_helper(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], kExeclHelperCommand) != 0) return std::nullopt;
    long long fd = 0, generation = 0, deadline = 0;
    if (argc != 5 || !parse_number(argv[2], fd) || !parse_number(argv[3], generation) ||
        !parse_number(argv[4], deadline) || fd < 0 || generation < 1) {
        static constexpr char kUsage[] =
            "hostprobe: __system-execl is the system probe's helper, not a command\n";
        (void)!::write(2, kUsage, sizeof kUsage - 1);
        return 2;
    }
    if (monotonic_ns() >= deadline) {
        const uint64_t generations = static_cast<uint64_t>(generation);
        return ::write(static_cast<int>(fd), &generations, sizeof generations) ==
                       static_cast<ssize_t>(sizeof generations)
                   ? 0
                   : 1;
    }
    ExeclCommandLine next("/proc/self/exe",
                          {static_cast<int>(fd), static_cast<uint64_t>(generation) + 1, deadline});
    ::execv(next.path(), next.argv());
    return 127;
}

}  // namespace hostprobe::probes
