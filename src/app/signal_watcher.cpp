#include "app/signal_watcher.hpp"

#include <pthread.h>
#include <signal.h>

#include <ctime>

namespace hostprobe::app {

namespace {

sigset_t shutdown_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void(int)> on_signal)
    : on_signal_(std::move(on_signal)) {
    const sigset_t set = shutdown_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    thread_ = std::thread([this] { watch(); });
}

SignalWatcher::~SignalWatcher() {
    stopping_ = true;
    thread_.join();
}

void SignalWatcher::watch() {
    const sigset_t set = shutdown_signals();
    // A short timeout lets the destructor end the thread without sending it a signal.
    const timespec timeout{0, 100 * 1000 * 1000};
    while (!stopping_) {
        const int signal_number = sigtimedwait(&set, nullptr, &timeout);
        if (signal_number > 0) {
            on_signal_(signal_number);
        }
    }
}

}  // namespace hostprobe::app
