// The tests that only make syscalls: UnixBench's syscall.c (mix), pipe.c and fstime.c (copy).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

Error system_error(const std::string& what) {
    return Error{ErrorCode::internal, what + ": " + std::strerror(errno)};
}

// The process's umask without changing it, even for a moment (other threads create files).
std::optional<mode_t> current_umask() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("Umask:", 0) == 0)
            return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
    }
    return std::nullopt;
}

// Closes a descriptor when it goes out of scope.
struct Descriptor {
    int fd = -1;
    ~Descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        data += written;
        size -= static_cast<size_t>(written);
    }
    return true;
}

bool read_all(int fd, char* data, size_t size) {
    while (size > 0) {
        const ssize_t got = ::read(fd, data, size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        data += got;
        size -= static_cast<size_t>(got);
    }
    return true;
}

}  // namespace

Result<CopyCount> syscall_copy(const CopyEnvironment& environment) {
    // syscall.c's "mix": close(dup(0)), getpid(), getuid(), umask(022) per loop. umask is set
    // to what it already is, so the agent's own file modes never change.
    const std::optional<mode_t> mask = current_umask();
    const auto start = Clock::now();
    uint64_t loops = 0;
    while (keep_going(environment)) {
        for (int i = 0; i < 64; ++i) {
            ::close(::dup(0));
            (void)::getpid();
            (void)::getuid();
            if (mask)
                (void)::umask(*mask);
            else
                (void)::getppid();
        }
        loops += 64;
    }
    return CopyCount{static_cast<double>(loops), seconds_since(start)};
}

Result<CopyCount> pipe_copy(const CopyEnvironment& environment) {
    // pipe.c: one process writes 512 bytes into a pipe and reads them back, per loop.
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) return system_error("pipe");
    const Descriptor reader{ends[0]}, writer{ends[1]};
    char buffer[512] = {};
    const auto start = Clock::now();
    uint64_t loops = 0;
    while (keep_going(environment)) {
        for (int i = 0; i < 16; ++i) {
            if (!write_all(writer.fd, buffer, sizeof buffer)) return system_error("pipe write");
            if (!read_all(reader.fd, buffer, sizeof buffer)) return system_error("pipe read");
        }
        loops += 16;
    }
    return CopyCount{static_cast<double>(loops), seconds_since(start)};
}

Result<CopyCount> file_copy_copy(const CopyEnvironment& environment, size_t buffer_bytes,
                                 size_t max_blocks) {
    // fstime.c's copy test: a file of max_blocks buffers is copied to a second one a buffer at
    // a time, both rewound at the end of the first; KB copied per second. Through the page
    // cache (no O_DIRECT, no fsync), as UnixBench does.
    const std::string source_path = environment.directory + "/" + environment.file_prefix + "-a";
    const std::string target_path = environment.directory + "/" + environment.file_prefix + "-b";
    struct Unlink {
        std::vector<std::string> paths;
        ~Unlink() {
            for (const auto& path : paths)
                ::unlink(path.c_str());
        }
    } unlink_later;
    const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    const Descriptor source{::open(source_path.c_str(), flags, 0600)};
    if (source.fd < 0) return system_error("cannot create " + source_path);
    unlink_later.paths.push_back(source_path);
    const Descriptor target{::open(target_path.c_str(), flags, 0600)};
    if (target.fd < 0) return system_error("cannot create " + target_path);
    unlink_later.paths.push_back(target_path);

    std::vector<char> buffer(buffer_bytes, 'x');
    for (size_t block = 0; block < max_blocks; ++block) {
        if (!write_all(source.fd, buffer.data(), buffer.size()))
            return system_error("cannot write " + source_path);
    }
    if (::lseek(source.fd, 0, SEEK_SET) < 0) return system_error("lseek");

    const auto start = Clock::now();
    uint64_t blocks = 0;
    while (keep_going(environment)) {
        const ssize_t got = ::read(source.fd, buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return system_error("cannot read " + source_path);
        if (got == 0) {  // end of the source: start both over
            if (::lseek(source.fd, 0, SEEK_SET) < 0 || ::lseek(target.fd, 0, SEEK_SET) < 0)
                return system_error("lseek");
            continue;
        }
        if (!write_all(target.fd, buffer.data(), static_cast<size_t>(got)))
            return system_error("cannot write " + target_path);
        ++blocks;
    }
    const double kilobytes = static_cast<double>(blocks * buffer_bytes) / 1024.0;
    return CopyCount{kilobytes, seconds_since(start)};
}

}  // namespace hostprobe::probes
