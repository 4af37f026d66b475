#include "app/signal_watcher.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <latch>
#include <system_error>

namespace hostprobe::app {

namespace {

struct StandardSignal {
    int number;
    const char* name;
};

// The standard signals of the set; the real-time ones follow from SIGRTMIN and SIGRTMAX.
constexpr StandardSignal kStandardSignals[] = {
    {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"}, {SIGTERM, "SIGTERM"},
    {SIGUSR1, "SIGUSR1"},     {SIGUSR2, "SIGUSR2"},     {SIGALRM, "SIGALRM"}, {SIGPIPE, "SIGPIPE"},
    {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},     {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
    {SIGPWR, "SIGPWR"},       {SIGSTKFLT, "SIGSTKFLT"}, {SIGIO, "SIGIO"},
};

sigset_t watched_signals(bool with_children) {
    sigset_t set;
    sigemptyset(&set);
    for (const int number : terminating_signals())
        sigaddset(&set, number);
    if (with_children) sigaddset(&set, SIGCHLD);
    return set;
}

// glibc's threads use signal 32 (below SIGRTMIN) for pthread_cancel. Its handler ignores any
// sender but this process, but glibc installs it only at the first pthread_cancel: until then
// that signal has its default action, and a `kill -32` from outside would end the agent with
// its files left behind. Cancelling a thread that has cancellation disabled installs the
// handler and cancels nothing. (Signal 33, for setuid across threads, is handled from the start.)
void install_glibc_cancel_handler() {
    std::latch disabled(1);
    std::latch cancelled(1);
    std::thread thread([&] {
        int previous = 0;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &previous);
        disabled.count_down();
        cancelled.wait();
    });
    disabled.wait();
    pthread_cancel(thread.native_handle());
    cancelled.count_down();
    thread.join();
}

}  // namespace

std::vector<int> terminating_signals() {
    std::vector<int> numbers;
    for (const auto& standard : kStandardSignals)
        numbers.push_back(standard.number);
    // SIGRTMIN is glibc's first free one: the two below it belong to its threads library.
    for (int number = SIGRTMIN; number <= SIGRTMAX; ++number)
        numbers.push_back(number);
    return numbers;
}

SignalMeaning signal_meaning(int signal_number, SignalContext context) {
    switch (signal_number) {
        case SIGINT:
        case SIGTERM:
        case SIGQUIT:  // its default dumps core; caught, it can clean up like SIGTERM
        case SIGXCPU:  // the CPU time limit: SIGKILL follows at the hard limit
        case SIGPWR:   // power failure; LXC's way of asking a container's init to stop
            return SignalMeaning::shut_down;
        case SIGHUP:
            return context == SignalContext::foreground ? SignalMeaning::shut_down
                                                        : SignalMeaning::ignore;
        default:
            // Timers we never set, SIGPIPE (a write to a closed peer fails with EPIPE instead),
            // SIGXFSZ (a write past the file size limit fails with EFBIG, and so does its run),
            // the user and real-time signals, which mean nothing here.
            return SignalMeaning::ignore;
    }
}

std::string signal_name(int signal_number) {
    for (const auto& standard : kStandardSignals) {
        if (standard.number == signal_number) return standard.name;
    }
    if (signal_number == SIGCHLD) return "SIGCHLD";
    if (signal_number >= SIGRTMIN && signal_number <= SIGRTMAX) {
        return signal_number == SIGRTMIN ? "SIGRTMIN"
                                         : "SIGRTMIN+" + std::to_string(signal_number - SIGRTMIN);
    }
    return "signal " + std::to_string(signal_number);
}

SignalWatcher::SignalWatcher(SignalContext context, SignalHandlers handlers)
    : context_(context), handlers_(std::move(handlers)) {
    const sigset_t set = watched_signals(static_cast<bool>(handlers_.child_ended));
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    install_glibc_cancel_handler();
    signals_.reset(::signalfd(-1, &set, SFD_CLOEXEC));
    stop_.reset(::eventfd(0, EFD_CLOEXEC));
    if (!signals_ || !stop_)
        throw std::system_error(errno, std::generic_category(), "signal watcher descriptors");
    thread_ = std::thread([this] { watch(); });
}

SignalWatcher::~SignalWatcher() {
    const std::uint64_t one = 1;
    // An eventfd's counter cannot overflow from one write; the thread wakes on it.
    [[maybe_unused]] const auto written = ::write(stop_.get(), &one, sizeof one);
    thread_.join();
}

void SignalWatcher::watch() {
    // Sleeps until a signal or the destructor's word: an idle agent must cost its task nothing,
    // and a timed wait (it was 10 wake-ups a second) cost 2 s of CPU an hour.
    std::array<pollfd, 2> watched{{{signals_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}}};
    while (true) {
        if (::poll(watched.data(), watched.size(), -1) < 0) continue;  // EINTR
        if (watched[1].revents != 0) return;
        signalfd_siginfo info{};
        if (::read(signals_.get(), &info, sizeof info) != static_cast<ssize_t>(sizeof info))
            continue;
        dispatch(static_cast<int>(info.ssi_signo));
    }
}

void SignalWatcher::dispatch(int signal_number) const {
    if (signal_number == SIGCHLD) {
        handlers_.child_ended();
    } else if (signal_meaning(signal_number, context_) == SignalMeaning::shut_down) {
        handlers_.shut_down(signal_number);
    } else if (handlers_.ignored) {
        handlers_.ignored(signal_number);
    }
}

}  // namespace hostprobe::app
