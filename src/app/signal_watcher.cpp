#include "app/signal_watcher.hpp"

#include <pthread.h>
#include <signal.h>

#include <ctime>

namespace hostprobe::app {

namespace {

sigset_t watched_signals(bool with_children) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (with_children) sigaddset(&set, SIGCHLD);
    return set;
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void(int)> on_shutdown,
                             std::function<void()> on_child_ended)
    : on_shutdown_(std::move(on_shutdown)), on_child_ended_(std::move(on_child_ended)) {
    const sigset_t set = watched_signals(static_cast<bool>(on_child_ended_));
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    thread_ = std::thread([this] { watch(); });
}

SignalWatcher::~SignalWatcher() {
    stopping_ = true;
    thread_.join();
}

void SignalWatcher::watch() {
    const sigset_t set = watched_signals(static_cast<bool>(on_child_ended_));
    // A short timeout lets the destructor end the thread without sending it a signal.
    const timespec timeout{0, 100 * 1000 * 1000};
    while (!stopping_) {
        const int signal_number = sigtimedwait(&set, nullptr, &timeout);
        if (signal_number == SIGCHLD) {
            on_child_ended_();
        } else if (signal_number > 0) {
            on_shutdown_(signal_number);
        }
    }
}

}  // namespace hostprobe::app
