// Waiting on a condition, never on a guess at how long something takes: the one poll loop the
// tests share.
#pragma once

#include <chrono>
#include <thread>

namespace hostprobe::testing {

// Polls `condition` until it holds (true) or `deadline` has passed (false, after one last look).
// The deadline only bounds a failure; a passing test waits no longer than the condition needs.
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds deadline = std::chrono::seconds(20),
                std::chrono::milliseconds interval = std::chrono::milliseconds(5)) {
    const auto give_up = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < give_up) {
        if (condition()) return true;
        std::this_thread::sleep_for(interval);
    }
    return condition();
}

}  // namespace hostprobe::testing
