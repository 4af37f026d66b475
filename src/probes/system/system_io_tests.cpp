// The tests that only make syscalls: UnixBench's syscall.c (mix), pipe.c and fstime.c (copy).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/elapsed.hpp"
#include "core/unique_fd.hpp"
#include "probes/system/pipe_io.hpp"
#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

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

}  // namespace

Result<CopyCount> syscall_copy(const CopyEnvironment& environment) {
    // syscall.c's "mix": close(dup(fd)), getpid(), getuid(), umask(022) per loop. umask is set
    // to what it already is, so the agent's own file modes never change. fd is the copy's own
    // (a pipe's read end, as UnixBench 6.0.0's create_fd): copies that dup one descriptor they
    // share (0) pass its file's reference count between CPUs, 0.72 of UnixBench with 2 copies.
    auto pipe = Pipe::open();
    if (!pipe) return pipe.error();
    pipe->close_write();
    const int fd = pipe->read_end();
    const std::optional<mode_t> mask = current_umask();
    const auto start = Clock::now();
    uint64_t loops = 0;
    while (keep_going(environment)) {
        for (int i = 0; i < 64; ++i) {
            ::close(::dup(fd));
            (void)::getpid();
            (void)::getuid();
            if (mask)
                (void)::umask(*mask);
            else
                (void)::getppid();
        }
        loops += 64;
    }
    return CopyCount{static_cast<double>(loops), core::seconds_since(start)};
}

Result<CopyCount> pipe_copy(const CopyEnvironment& environment) {
    // pipe.c: one process writes 512 bytes into a pipe and reads them back, per loop.
    auto pipe = Pipe::open();
    if (!pipe) return pipe.error();
    char buffer[512] = {};
    const auto start = Clock::now();
    uint64_t loops = 0;
    while (keep_going(environment)) {
        for (int i = 0; i < 16; ++i) {
            if (!write_all(pipe->write_end(), buffer, sizeof buffer))
                return errno_error("pipe write");
            if (!read_all(pipe->read_end(), buffer, sizeof buffer)) return errno_error("pipe read");
        }
        loops += 16;
    }
    return CopyCount{static_cast<double>(loops), core::seconds_since(start)};
}

namespace {

// fstime.c's copy test: a file of max_blocks KiB is copied to a second one a buffer at a time,
// both rewound at the end of the first; KB copied per second. Through the page cache (no
// O_DIRECT, no fsync while timed), as UnixBench does; like fstime, the source is written, synced
// and read once before the clock starts, so that no writeback of it falls into the copy. Both
// files are made and removed relative to the work directory's descriptor, and go when the copy
// does.
class FileCopy final : public PreparedCopy {
  public:
    FileCopy(const CopyEnvironment& environment, size_t buffer_bytes)
        : directory_(environment.directory_fd),
          source_name_(environment.file_prefix + "-a"),
          target_name_(environment.file_prefix + "-b"),
          source_path_(environment.directory + "/" + source_name_),
          target_path_(environment.directory + "/" + target_name_),
          buffer_(buffer_bytes, 'x') {}
    ~FileCopy() override {
        if (source_) ::unlinkat(directory_, source_name_.c_str(), 0);
        if (target_) ::unlinkat(directory_, target_name_.c_str(), 0);
    }

    Status create(size_t max_kilobytes) {
        const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
        source_.reset(::openat(directory_, source_name_.c_str(), flags, 0600));
        if (!source_) return errno_error("cannot create " + source_path_);
        target_.reset(::openat(directory_, target_name_.c_str(), flags, 0600));
        if (!target_) return errno_error("cannot create " + target_path_);
        const size_t buffers = max_kilobytes * 1024 / buffer_.size();  // fstime's max_buffs
        for (size_t block = 0; block < buffers; ++block) {
            if (!write_all(source_.get(), buffer_.data(), buffer_.size()))
                return errno_error("cannot write " + source_path_);
        }
        if (::syncfs(source_.get()) != 0) return errno_error("cannot sync " + source_path_);
        if (::lseek(source_.get(), 0, SEEK_SET) < 0) return errno_error("lseek");
        for (size_t block = 0; block < buffers; ++block) {
            if (!read_all(source_.get(), buffer_.data(), buffer_.size()))
                return errno_error("cannot read " + source_path_);
        }
        if (::lseek(source_.get(), 0, SEEK_SET) < 0) return errno_error("lseek");
        return Ok{};
    }

    Result<CopyCount> run(const CopyEnvironment& environment) override {
        const auto start = Clock::now();
        uint64_t blocks = 0;
        // The clock is read every 64 buffers: at 256 bytes a buffer takes about 450 ns, and
        // reading it each time cost 6% (fstime checks a flag its alarm sets).
        while ((blocks % 64 != 0) || keep_going(environment)) {
            const ssize_t got = ::read(source_.get(), buffer_.data(), buffer_.size());
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) return errno_error("cannot read " + source_path_);
            if (got == 0) {  // end of the source: start both over
                if (::lseek(source_.get(), 0, SEEK_SET) < 0 ||
                    ::lseek(target_.get(), 0, SEEK_SET) < 0)
                    return errno_error("lseek");
                continue;
            }
            if (!write_all(target_.get(), buffer_.data(), static_cast<size_t>(got)))
                return errno_error("cannot write " + target_path_);
            ++blocks;
        }
        const double kilobytes = static_cast<double>(blocks * buffer_.size()) / 1024.0;
        return CopyCount{kilobytes, core::seconds_since(start)};
    }

  private:
    int directory_;  // the work directory, open for the helper's whole life
    std::string source_name_;
    std::string target_name_;
    std::string source_path_;  // what messages name
    std::string target_path_;
    std::vector<char> buffer_;
    core::UniqueFd source_;
    core::UniqueFd target_;
};

}  // namespace

Result<std::unique_ptr<PreparedCopy>> prepare_file_copy(const CopyEnvironment& environment,
                                                        size_t buffer_bytes, size_t max_kilobytes) {
    auto copy = std::make_unique<FileCopy>(environment, buffer_bytes);
    if (auto created = copy->create(max_kilobytes); !created) return created.error();
    return std::unique_ptr<PreparedCopy>(std::move(copy));
}

}  // namespace hostprobe::probes
