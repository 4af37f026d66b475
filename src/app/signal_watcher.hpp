// Turns SIGTERM/SIGINT into a callback on a thread of its own, without a global flag or an
// async-signal handler: the signals are blocked and collected with sigtimedwait.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace hostprobe::app {

class SignalWatcher {
  public:
    // Blocks SIGINT and SIGTERM in the calling thread. Construct it before starting any other
    // thread so that every thread inherits the mask and only the watcher receives them.
    explicit SignalWatcher(std::function<void(int)> on_signal);
    ~SignalWatcher();
    SignalWatcher(const SignalWatcher&) = delete;
    SignalWatcher& operator=(const SignalWatcher&) = delete;

  private:
    void watch();

    std::function<void(int)> on_signal_;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
};

}  // namespace hostprobe::app
