#include "probes/common/agent_cpu_time.hpp"

#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <charconv>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace hostprobe::probes {

namespace {

constexpr size_t kMaxStatBytes = 4096;

double timeval_seconds(const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

std::string bounded_read(const std::string& path) {
    std::ifstream in(path);
    std::string text(kMaxStatBytes, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    return text;
}

// The children of every thread of ours (/proc/self/task/<tid>/children), their ticks summed.
long long live_children_ticks() {
    long long ticks = 0;
    std::error_code error;
    for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        std::istringstream children(bounded_read(it->path().string() + "/children"));
        for (long long pid = 0; children >> pid;) {
            const long long child =
                process_tree_ticks(bounded_read("/proc/" + std::to_string(pid) + "/stat"));
            if (child > 0) ticks += child;  // one that ended meanwhile counts once it is reaped
        }
    }
    return ticks;
}

}  // namespace

long long process_tree_ticks(std::string_view stat_line) {
    // "pid (comm) state ppid ..."; comm may hold spaces and parentheses: fields follow the last
    // ")".
    const size_t comm_end = stat_line.rfind(')');
    if (comm_end == std::string_view::npos) return -1;
    std::string_view rest = stat_line.substr(comm_end + 1);
    // After the comm: state is field 3; utime, stime, cutime, cstime are fields 14..17.
    long long sum = 0;
    for (int field = 3; field <= 17; ++field) {
        while (!rest.empty() && rest.front() == ' ')
            rest.remove_prefix(1);
        const size_t end = std::min(rest.find(' '), rest.size());
        if (end == 0) return -1;
        if (field >= 14) {
            long long value = 0;
            const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + end, value);
            if (ec != std::errc() || ptr != rest.data() + end || value < 0) return -1;
            sum += value;
        }
        rest.remove_prefix(end);
    }
    return sum;
}

double agent_cpu_seconds() {
    timespec own{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own);
    rusage reaped{};
    getrusage(RUSAGE_CHILDREN, &reaped);
    static const long ticks_per_second = sysconf(_SC_CLK_TCK);
    return static_cast<double>(own.tv_sec) + static_cast<double>(own.tv_nsec) / 1e9 +
           timeval_seconds(reaped.ru_utime) + timeval_seconds(reaped.ru_stime) +
           static_cast<double>(live_children_ticks()) / static_cast<double>(ticks_per_second);
}

}  // namespace hostprobe::probes
