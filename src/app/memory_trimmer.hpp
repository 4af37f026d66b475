// Gives memory back to the system after bursts. glibc keeps what threads freed inside its
// arenas, so after a load spike (many scrapes and run listings at once, a run's buffers) the
// agent's RSS would stay at its peak in someone else's task; malloc_trim returns the free pages.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace hostprobe::app {

class MemoryTrimmer {
  public:
    // Starts a thread that trims every `interval`; construct it after the SignalWatcher.
    explicit MemoryTrimmer(std::chrono::milliseconds interval);
    ~MemoryTrimmer();
    MemoryTrimmer(const MemoryTrimmer&) = delete;
    MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

    // How many times it has trimmed (for tests).
    unsigned long trims() const;

  private:
    void loop(std::stop_token stop);

    const std::chrono::milliseconds interval_;
    mutable std::mutex mutex_;
    std::condition_variable_any wake_;
    unsigned long trims_ = 0;
    std::jthread thread_;  // last: starts after the members it uses exist
};

}  // namespace hostprobe::app
