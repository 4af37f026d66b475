#include "emf/line_writer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace hostprobe::emf {

namespace {

using WriterClock = std::chrono::steady_clock;

// A pipe's free bytes do not tell what a write can take: the kernel keeps a ring of pages
// (capacity / 4096) and a write starts a new page unless its first part fits in the last one,
// so a pipe holding a few lines may have no free page left. A write of n bytes takes at most
// ceil(n / 4096) new pages; the pages in use are bounded by the lines written that are not
// wholly read yet, each counted in full.
constexpr size_t kPipePage = 4096;
constexpr std::chrono::milliseconds kPipeRecheck{2};

size_t pages_for(size_t bytes) {
    return (bytes + kPipePage - 1) / kPipePage;
}

ssize_t write_some(const OutputTarget& target, const char* data, size_t size) {
    if (target.socket) return ::send(target.fd.get(), data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    return ::write(target.fd.get(), data, size);
}

bool wait_writable(int fd, WriterClock::time_point deadline, std::chrono::milliseconds at_most) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - WriterClock::now());
    if (left.count() <= 0) return false;
    pollfd entry{fd, POLLOUT, 0};
    const int polled = ::poll(&entry, 1, static_cast<int>(std::min(left, at_most).count()));
    return polled >= 0 && (entry.revents & (POLLERR | POLLNVAL)) == 0;
}

bool is_retryable(int error) {
    return error == EAGAIN || error == EWOULDBLOCK || error == EINTR;
}

// The writer thread starts with every signal blocked: process signals stay with whoever waits
// for them (serve's SignalWatcher), and SIGPIPE, which a write to a pipe without a reader
// raises in the writing thread, stays pending there while the write fails with EPIPE.
template <typename Start>
std::jthread started_with_signals_blocked(Start start) {
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    (void)pthread_sigmask(SIG_SETMASK, &all, &previous);
    std::jthread thread(std::move(start));
    (void)pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return thread;
}

}  // namespace

LineWriter::LineWriter(OutputTarget target, LineWriterOptions options)
    : target_(std::move(target)), options_(options) {
    thread_ = started_with_signals_blocked([this](const std::stop_token& stop) { drain(stop); });
}

std::unique_ptr<LineWriter> LineWriter::for_stdout(LineWriterOptions options) {
    return std::make_unique<LineWriter>(open_output_target(STDOUT_FILENO), options);
}

LineWriter::~LineWriter() {
    thread_.request_stop();
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    dropped_ += queue_.size();
}

void LineWriter::write_line(std::string line) {
    line.push_back('\n');
    {
        const std::lock_guard lock(mutex_);
        const bool fits = queue_.size() < options_.max_queued_lines &&
                          queued_bytes_ + line.size() <= options_.max_queued_bytes;
        if (target_.kind != TargetKind::closed && fits) {
            queued_bytes_ += line.size();
            queue_.push_back(std::move(line));
            changed_.notify_all();
            return;
        }
    }
    ++dropped_;
}

bool LineWriter::flush_for(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return queue_.empty() && !busy_; });
}

void LineWriter::drain(const std::stop_token& stop) {
    while (true) {
        std::string line;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, stop, [this] { return !queue_.empty(); });
            if (stop.stop_requested()) return;
            line = std::move(queue_.front());
            queue_.pop_front();
            queued_bytes_ -= line.size();
            busy_ = true;
        }
        ++(write_whole(line, stop) ? written_ : dropped_);
        {
            const std::lock_guard lock(mutex_);
            busy_ = false;
        }
        changed_.notify_all();
    }
}

bool LineWriter::pipe_takes_whole(size_t size) {
    const int fd = target_.fd.get();
    const size_t needed = pages_for(size);
    int capacity = ::fcntl(fd, F_GETPIPE_SZ);
    if (capacity >= 0 && pages_for(static_cast<size_t>(capacity)) < needed) {
        const int grown = ::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(needed * kPipePage));
        if (grown > 0) capacity = grown;
    }
    int unread = 0;
    if (capacity < 0 || ::ioctl(fd, FIONREAD, &unread) != 0 || unread < 0) return false;
    // The newest lines hold the unread bytes; older ones are read and forgotten.
    size_t covered = 0;
    size_t pages_in_use = 0;
    size_t still_unread = 0;
    for (auto line = lines_in_pipe_.rbegin();
         line != lines_in_pipe_.rend() && covered < static_cast<size_t>(unread); ++line) {
        covered += *line;
        pages_in_use += pages_for(*line);
        ++still_unread;
    }
    lines_in_pipe_.erase(lines_in_pipe_.begin(),
                         lines_in_pipe_.end() - static_cast<std::ptrdiff_t>(still_unread));
    if (covered < static_cast<size_t>(unread))  // bytes someone else wrote
        pages_in_use += pages_for(static_cast<size_t>(unread) - covered) + 1;
    return pages_in_use + needed <= pages_for(static_cast<size_t>(capacity));
}

bool LineWriter::write_whole(const std::string& text, const std::stop_token& stop) {
    const int fd = target_.fd.get();
    const auto deadline = WriterClock::now() + options_.line_timeout;
    if (target_.kind == TargetKind::pipe) {
        // Nothing is written until the whole line fits, so a reader that stops reading never
        // gets half a line.
        while (!pipe_takes_whole(text.size())) {
            if (stop.stop_requested() || !wait_writable(fd, deadline, kPipeRecheck)) return false;
            if (WriterClock::now() >= deadline) return false;
            std::this_thread::sleep_for(
                kPipeRecheck);  // POLLOUT means some room, not an empty pipe
        }
    }
    if (target_.kind == TargetKind::pipe) lines_in_pipe_.push_back(text.size());
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write_some(target_, text.data() + done, text.size() - done);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && !is_retryable(errno)) return false;  // EPIPE, EBADF, ENOSPC...
        if (!wait_writable(fd, deadline, options_.line_timeout)) return false;
    }
    return true;
}

}  // namespace hostprobe::emf
