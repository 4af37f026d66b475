// Turns SIGTERM/SIGINT (and, for PID 1, SIGCHLD) into callbacks on a thread of its own, without
// a global flag or an async-signal handler: the signals are blocked and collected with
// sigtimedwait.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace hostprobe::app {

class SignalWatcher {
  public:
    // Blocks the signals in the calling thread. Construct it before starting any other thread
    // so that every thread inherits the mask and only the watcher receives them. With
    // on_child_ended, SIGCHLD is collected too.
    explicit SignalWatcher(std::function<void(int)> on_shutdown,
                           std::function<void()> on_child_ended = {});
    ~SignalWatcher();
    SignalWatcher(const SignalWatcher&) = delete;
    SignalWatcher& operator=(const SignalWatcher&) = delete;

  private:
    void watch();

    std::function<void(int)> on_shutdown_;
    std::function<void()> on_child_ended_;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
};

}  // namespace hostprobe::app
