// Turns signals into callbacks on a thread of its own, without a global flag or an async-signal
// handler: the signals are blocked and read from a signalfd, which the thread sleeps on.
//
// Every catchable signal whose default action would end the process is collected and has a
// meaning (signal_meaning): shut down cleanly (runs cancelled and recorded, test files removed)
// or logged and ignored. No signal of that set can end the agent with a file left behind. The
// fault signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT) keep their default:
// they report a bug in this process, the kernel forces them through any mask, and no cleanup
// code can be trusted after one; like kill -9, their leftovers go at the next start.
#pragma once

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/unique_fd.hpp"

namespace hostprobe::app {

enum class SignalMeaning { shut_down, ignore };

// A daemon has no terminal: a hangup there means "reload", and we have nothing to reload. A
// foreground command (`hostprobe run`) whose terminal hung up has nobody left to report to.
enum class SignalContext { daemon, foreground };

// The catchable signals whose default action ends the process, faults excepted (see above):
// SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF,
// SIGXCPU, SIGXFSZ, SIGPWR, SIGSTKFLT, SIGIO and SIGRTMIN..SIGRTMAX.
std::vector<int> terminating_signals();
SignalMeaning signal_meaning(int signal_number, SignalContext context);
// "SIGHUP", "SIGRTMIN+3"; "signal 99" for a number outside the set.
std::string signal_name(int signal_number);

struct SignalHandlers {
    std::function<void(int)> shut_down;  // required: each signal that means shut down
    std::function<void(int)> ignored;    // any other signal of the set; may be empty
    std::function<void()> child_ended;   // SIGCHLD; may be empty, and then it is not collected
};

class SignalWatcher {
  public:
    // Blocks the signals in the calling thread. Construct it before starting any other thread
    // so that every thread inherits the mask and only the watcher receives them. Children
    // started with ChildProcess unblock everything again.
    SignalWatcher(SignalContext context, SignalHandlers handlers);
    ~SignalWatcher();
    SignalWatcher(const SignalWatcher&) = delete;
    SignalWatcher& operator=(const SignalWatcher&) = delete;

  private:
    void watch();
    void dispatch(int signal_number) const;

    SignalContext context_;
    SignalHandlers handlers_;
    core::UniqueFd signals_;  // signalfd of the blocked set
    core::UniqueFd stop_;     // eventfd the destructor writes to
    std::thread thread_;      // last: starts after the members it uses exist
};

}  // namespace hostprobe::app
