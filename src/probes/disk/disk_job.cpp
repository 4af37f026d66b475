#include "probes/disk/disk_job.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "probes/common/aligned_buffer.hpp"
#include "probes/storage/test_files.hpp"

#ifdef HOSTPROBE_HAVE_IO_URING
#include <liburing.h>
#endif

namespace hostprobe::probes {

namespace {

constexpr uint64_t kLayoutChunk = 1 << 20;

struct CpuTimes {
    double user = 0;
    double system = 0;
};

CpuTimes thread_cpu_times() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    auto seconds = [](const timeval& value) {
        return static_cast<double>(value.tv_sec) + static_cast<double>(value.tv_usec) / 1e6;
    };
    return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

std::string io_error(const char* what, int error) {
    if (error == ENOSPC) return std::string("no space left on the device while ") + what;
    return std::string(what) + ": " + std::strerror(error);
}

// What the next I/O is: where, and which way.
class IoPlan {
  public:
    IoPlan(const DiskJobOptions& options)
        : options_(options), random_(options.seed), blocks_(options.file_size / options.block) {}

    bool is_read() {
        switch (options_.rw) {
            case RwPattern::read:
            case RwPattern::randread: return true;
            case RwPattern::write:
            case RwPattern::randwrite: return false;
            case RwPattern::randrw: return random_.next() % 100 < options_.rwmixread;
        }
        return true;
    }

    uint64_t offset() {
        if (options_.rw == RwPattern::read || options_.rw == RwPattern::write) {
            const uint64_t block = sequential_++ % blocks_;
            return block * options_.block;
        }
        // Uniform over whole blocks, repeats allowed (fio's norandommap). The modulo bias of a
        // 64-bit draw over at most 2^40 blocks is below 2^-24: invisible in a latency test.
        return (random_.next() % blocks_) * options_.block;
    }

    // Changes a write buffer a little each time, so no two writes carry the same data.
    void scramble(unsigned char* buffer) {
        const uint64_t word = random_.next();
        std::memcpy(buffer, &word, sizeof word);
    }

  private:
    const DiskJobOptions& options_;
    RandomFill random_;
    uint64_t blocks_;
    uint64_t sequential_ = 0;
};

// Records completions of the measured part.
class Recorder {
  public:
    Recorder(DiskJobResult& result, DiskProgress& progress, SecondLatencySink sink,
             int64_t measure_from_ns)
        : result_(result), progress_(progress), sink_(sink), measure_from_ns_(measure_from_ns) {}

    void complete(bool read, uint64_t bytes, int64_t issued_ns, int64_t completed_ns) {
        if (issued_ns < measure_from_ns_) return;  // ramp time
        DirectionStats& stats = read ? result_.read : result_.write;
        const auto latency = static_cast<uint64_t>(completed_ns - issued_ns);
        stats.clat.record(latency);
        ++stats.ios;
        stats.bytes += bytes;
        const auto second = static_cast<size_t>((completed_ns - measure_from_ns_) / 1'000'000'000);
        if (second >= result_.ios_per_second.size()) result_.ios_per_second.resize(second + 1, 0);
        ++result_.ios_per_second[second];
        if (second > second_) hand_over(second);
        (read ? second_read_ : second_write_).record(latency);
        progress_.measured_ios.fetch_add(1, std::memory_order_relaxed);
    }
    // The job completes nothing more.
    void finish() { hand_over(SIZE_MAX); }
    uint64_t measured_ios() const { return result_.read.ios + result_.write.ios; }
    // After a submission: how many I/Os are in flight now.
    void in_flight(unsigned count) {
        result_.max_in_flight = std::max(result_.max_in_flight, count);
    }

  private:
    void hand_over(size_t next_second) {
        sink_.seconds.hand_over(sink_.job, second_, second_read_, second_write_, next_second);
        second_ = next_second;
        second_read_ = {};
        second_write_ = {};
    }

    DiskJobResult& result_;
    DiskProgress& progress_;
    SecondLatencySink sink_;
    int64_t measure_from_ns_;
    size_t second_ = 0;  // the second second_read_ and second_write_ hold
    LatencyHistogram second_read_;
    LatencyHistogram second_write_;
};

std::string lay_out(const DiskJobOptions& options, int fd, DiskProgress& progress,
                    std::stop_token& stop) {
    AlignedBuffer buffer = aligned_buffer(kLayoutChunk);
    if (!buffer) return "cannot allocate the layout buffer";
    RandomFill random(options.seed ^ 0x5eed);
    for (uint64_t written = 0; written < options.file_size;) {
        if (stop.stop_requested()) return "";
        const uint64_t chunk = std::min<uint64_t>(kLayoutChunk, options.file_size - written);
        random.fill(buffer.get(), chunk);
        const ssize_t done = ::pwrite(fd, buffer.get(), chunk, static_cast<off_t>(written));
        if (done < 0) {
            if (errno == EINTR) continue;
            return io_error("laying out the test file", errno);
        }
        if (done == 0) return "laying out the test file: the device accepted no data";
        written += static_cast<uint64_t>(done);
        progress.laid_out_bytes.fetch_add(static_cast<uint64_t>(done), std::memory_order_relaxed);
    }
    if (::fdatasync(fd) != 0) return io_error("flushing the laid out file", errno);
    return "";
}

struct Limits {
    int64_t measure_from_ns;
    int64_t deadline_ns;
    uint64_t max_ios;  // for runs that are not time based
};

bool should_stop(const Limits& limits, const Recorder& recorder, std::stop_token& stop,
                 bool& partial) {
    if (stop.stop_requested()) {
        partial = true;
        return true;
    }
    return steady_now_ns() >= limits.deadline_ns || recorder.measured_ios() >= limits.max_ios;
}

std::string run_psync(const DiskJobOptions& options, int fd, const Limits& limits,
                      Recorder& recorder, std::stop_token& stop, bool& partial) {
    AlignedBuffer buffer = aligned_buffer(options.block);
    if (!buffer) return "cannot allocate the I/O buffer";
    RandomFill(options.seed).fill(buffer.get(), options.block);
    IoPlan plan(options);
    unsigned writes_since_sync = 0;
    while (!should_stop(limits, recorder, stop, partial)) {
        const bool read = plan.is_read();
        const auto offset = static_cast<off_t>(plan.offset());
        if (!read) plan.scramble(buffer.get());
        const int64_t issued = steady_now_ns();
        const ssize_t done = read ? ::pread(fd, buffer.get(), options.block, offset)
                                  : ::pwrite(fd, buffer.get(), options.block, offset);
        const int64_t completed = steady_now_ns();
        if (done < 0 && errno == EINTR) continue;
        if (done < 0) return io_error(read ? "reading" : "writing", errno);
        if (static_cast<uint64_t>(done) != options.block)
            return read ? "short read" : "short write";
        recorder.complete(read, options.block, issued, completed);
        if (!read && options.fsync_every != 0 && ++writes_since_sync == options.fsync_every) {
            writes_since_sync = 0;
            if (::fdatasync(fd) != 0) return io_error("syncing", errno);
        }
    }
    return "";
}

#ifdef HOSTPROBE_HAVE_IO_URING
std::string run_io_uring(const DiskJobOptions& options, int fd, const Limits& limits,
                         Recorder& recorder, std::stop_token& stop, bool& partial) {
    io_uring ring{};
    if (int status = io_uring_queue_init(options.iodepth, &ring, 0); status < 0) {
        return "io_uring is not available here (" + std::string(std::strerror(-status)) +
               "; a seccomp profile may forbid it): use \"ioengine\": \"psync\"";
    }
    struct Slot {
        AlignedBuffer buffer;
        bool read = true;
        int64_t issued = 0;
        bool busy = false;
    };
    std::vector<Slot> slots(options.iodepth);
    for (auto& slot : slots) {
        slot.buffer = aligned_buffer(options.block);
        if (!slot.buffer) {
            io_uring_queue_exit(&ring);
            return "cannot allocate the I/O buffers";
        }
        RandomFill(options.seed + 1).fill(slot.buffer.get(), options.block);
    }
    IoPlan plan(options);
    unsigned in_flight = 0;
    unsigned writes_since_sync = 0;
    uint64_t measured_submitted = 0;  // a pass that is not time based must not overshoot
    std::string error;
    bool submitting = true;
    while (error.empty() && (submitting || in_flight > 0)) {
        if (submitting && should_stop(limits, recorder, stop, partial)) submitting = false;
        for (size_t i = 0; submitting && i < slots.size() && measured_submitted < limits.max_ios;
             ++i) {
            if (slots[i].busy) continue;
            io_uring_sqe* entry = io_uring_get_sqe(&ring);
            if (entry == nullptr) break;
            Slot& slot = slots[i];
            slot.read = plan.is_read();
            const uint64_t offset = plan.offset();
            if (slot.read) {
                io_uring_prep_read(entry, fd, slot.buffer.get(),
                                   static_cast<unsigned>(options.block), offset);
            } else {
                plan.scramble(slot.buffer.get());
                io_uring_prep_write(entry, fd, slot.buffer.get(),
                                    static_cast<unsigned>(options.block), offset);
            }
            io_uring_sqe_set_data64(entry, i);
            slot.issued = steady_now_ns();
            slot.busy = true;
            ++in_flight;
            if (slot.issued >= limits.measure_from_ns) ++measured_submitted;
        }
        if (in_flight == 0) break;
        if (io_uring_submit(&ring) >= 0) recorder.in_flight(in_flight);
        io_uring_cqe* completion = nullptr;
        __kernel_timespec timeout{0, 100'000'000};  // wake to see the deadline and the stop token
        const int waited = io_uring_wait_cqe_timeout(&ring, &completion, &timeout);
        if (waited == -ETIME || waited == -EINTR) continue;
        if (waited < 0) {
            error = io_error("waiting for io_uring", -waited);
            break;
        }
        unsigned head = 0;
        unsigned seen = 0;
        io_uring_for_each_cqe(&ring, head, completion) {
            ++seen;
            Slot& slot = slots[io_uring_cqe_get_data64(completion)];
            slot.busy = false;
            --in_flight;
            if (completion->res < 0) {
                error = io_error(slot.read ? "reading" : "writing", -completion->res);
            } else if (static_cast<uint64_t>(completion->res) != options.block) {
                error = slot.read ? "short read" : "short write";
            } else {
                recorder.complete(slot.read, options.block, slot.issued, steady_now_ns());
                if (!slot.read && options.fsync_every != 0 &&
                    ++writes_since_sync == options.fsync_every) {
                    writes_since_sync = 0;
                    if (::fdatasync(fd) != 0) error = io_error("syncing", errno);
                }
            }
        }
        io_uring_cq_advance(&ring, seen);
    }
    io_uring_queue_exit(&ring);  // waits for anything still in flight
    return error;
}
#endif

}  // namespace

Result<RwPattern> parse_rw(const std::string& text) {
    if (text == "read") return RwPattern::read;
    if (text == "write") return RwPattern::write;
    if (text == "randread") return RwPattern::randread;
    if (text == "randwrite") return RwPattern::randwrite;
    if (text == "randrw") return RwPattern::randrw;
    return make_error(ErrorCode::invalid_argument,
                      "rw '" + text + "' is not read, write, randread, randwrite or randrw");
}

bool io_uring_supported() {
#ifdef HOSTPROBE_HAVE_IO_URING
    return true;
#else
    return false;
#endif
}

void DirectionStats::merge(const DirectionStats& other) {
    clat.merge(other.clat);
    ios += other.ios;
    bytes += other.bytes;
}

DiskJobResult run_disk_job(const DiskJobOptions& options, int fd, StartGate& gate,
                           DiskProgress& progress, SecondLatencySink sink, std::stop_token stop) {
    DiskJobResult result;
    result.error = lay_out(options, fd, progress, stop);
    gate.ready.count_down();
    gate.go.wait();
    if (!result.error.empty() || stop.stop_requested()) {
        result.partial = stop.stop_requested();
        sink.seconds.finish(sink.job);
        return result;
    }
    const int64_t start = gate.start_ns.load();
    const Limits limits{start + static_cast<int64_t>(options.ramp_seconds * 1e9),
                        gate.deadline_ns.load(),
                        options.time_based ? UINT64_MAX : options.file_size / options.block};
    Recorder recorder(result, progress, sink, limits.measure_from_ns);
    const CpuTimes cpu_before = thread_cpu_times();
    bool partial = false;
#ifdef HOSTPROBE_HAVE_IO_URING
    result.error = options.engine == IoEngineKind::io_uring
                       ? run_io_uring(options, fd, limits, recorder, stop, partial)
                       : run_psync(options, fd, limits, recorder, stop, partial);
#else
    result.error = run_psync(options, fd, limits, recorder, stop, partial);
#endif
    recorder.finish();
    const CpuTimes cpu_after = thread_cpu_times();
    result.usr_seconds = cpu_after.user - cpu_before.user;
    result.sys_seconds = cpu_after.system - cpu_before.system;
    result.partial = partial;
    result.runtime_seconds =
        std::max(0.0, static_cast<double>(std::min(steady_now_ns(), limits.deadline_ns) -
                                          limits.measure_from_ns) /
                          1e9);
    return result;
}

}  // namespace hostprobe::probes
