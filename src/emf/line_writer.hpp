// Writes EMF lines from its own thread so that the agent never waits on its stdout: callers
// queue a line and return. A line is written whole or not at all: when the target is closed,
// its reader is gone (EPIPE), the queue is full, or the pipe has not had room for the whole line
// within `line_timeout`, the line is dropped and counted. Every signal is blocked in the writer
// thread, so a reader that went away is EPIPE there, never the end of the process, and the
// writer may start before serve's SignalWatcher. On a terminal or socket (no room to measure)
// a line cut by the timeout is counted as dropped, though its start was written.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "emf/output_target.hpp"

namespace hostprobe::emf {

struct LineWriterOptions {
    size_t max_queued_lines = 256;
    size_t max_queued_bytes = 8 << 20;
    std::chrono::milliseconds line_timeout{1000};
};

class LineWriter {
  public:
    LineWriter(OutputTarget target, LineWriterOptions options = {});
    // Stdout as it is now: call before the process opens other files, so that a closed stdout
    // is seen as closed.
    static std::unique_ptr<LineWriter> for_stdout(LineWriterOptions options = {});
    ~LineWriter();  // lines still queued are dropped (and counted) after the one being written
    LineWriter(const LineWriter&) = delete;
    LineWriter& operator=(const LineWriter&) = delete;

    // Queues `line` (one JSON document, no newline; the writer adds it).
    void write_line(std::string line);
    // Waits until every queued line is written or dropped; false when `timeout` passed first.
    bool flush_for(std::chrono::milliseconds timeout);

    uint64_t lines_written() const { return written_.load(); }
    uint64_t lines_dropped() const { return dropped_.load(); }

  private:
    void drain(const std::stop_token& stop);
    bool write_whole(const std::string& text, const std::stop_token& stop);
    bool pipe_takes_whole(size_t size);  // writer thread only

    const OutputTarget target_;
    const LineWriterOptions options_;
    std::atomic<uint64_t> written_{0};
    std::atomic<uint64_t> dropped_{0};
    std::mutex mutex_;
    std::condition_variable_any changed_;
    std::deque<std::string> queue_;  // each with its newline
    size_t queued_bytes_ = 0;
    bool busy_ = false;                 // a line taken from the queue is being written
    std::deque<size_t> lines_in_pipe_;  // sizes of the lines last written to a pipe (writer thread)
    std::jthread thread_;
};

}  // namespace hostprobe::emf
