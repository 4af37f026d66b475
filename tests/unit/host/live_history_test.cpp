// The ring of recent live readings: which earlier reading a new one is compared with, how many
// are kept, and that concurrent requests are safe (a fake clock: readings carry their time).
#include "host/live_history.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

using std::chrono::milliseconds;

const std::chrono::steady_clock::time_point kHistoryEpoch{std::chrono::hours(2)};

LiveReading reading_after(milliseconds elapsed) {
    LiveReading reading;
    reading.at = kHistoryEpoch + elapsed;
    reading.budget_cores = static_cast<double>(elapsed.count());  // tells readings apart
    return reading;
}

milliseconds baseline_age(const LiveSample& sample) {
    REQUIRE(sample.baseline);
    return std::chrono::duration_cast<milliseconds>(sample.now.at - sample.baseline->at);
}

}  // namespace

TEST_CASE("live history: the first reading has no baseline, nor one under a second later") {
    LiveHistory history;
    CHECK_FALSE(history.record(reading_after(milliseconds(0))).baseline);
    CHECK_FALSE(history.record(reading_after(milliseconds(400))).baseline);
    CHECK(history.size() == 1);  // 400 ms is too close to be kept
    CHECK(baseline_age(history.record(reading_after(milliseconds(1000)))) == milliseconds(1000));
    CHECK(history.size() == 2);
}

TEST_CASE("live history: the widest window up to 10 s, else the newest reading old enough") {
    LiveHistory history;
    for (int second = 0; second <= 14; ++second)
        history.record(reading_after(milliseconds(second * 1000)));
    // At 15.5 s: readings at 0..14 s are kept; the oldest within 10 s is the one at 5.5 s or
    // after, so 6 s.
    CHECK(baseline_age(history.record(reading_after(milliseconds(15500)))) == milliseconds(9500));
    // A minute later nothing is within 10 s: the newest kept reading (15.5 s).
    CHECK(baseline_age(history.record(reading_after(milliseconds(75500)))) == milliseconds(60000));
}

TEST_CASE("live history: at most 16 readings, and a burst does not push old ones out") {
    LiveHistory history;
    for (int second = 0; second < 40; ++second)
        history.record(reading_after(milliseconds(second * 1000)));
    CHECK(history.size() == LiveHistory::kCapacity);
    for (int i = 0; i < 1000; ++i)
        history.record(reading_after(milliseconds(39000 + i / 10)));
    CHECK(history.size() == LiveHistory::kCapacity);
    CHECK(baseline_age(history.record(reading_after(milliseconds(40000)))) == milliseconds(10000));
    // A reading older than the newest kept one (a slower concurrent request) is answered but not
    // kept.
    const auto late = history.record(reading_after(milliseconds(39500)));
    CHECK(baseline_age(late) == milliseconds(9500));
    CHECK(history.size() == LiveHistory::kCapacity);
}

TEST_CASE("live history: concurrent requests") {
    LiveHistory history;
    std::vector<std::thread> threads;
    for (int thread = 0; thread < 4; ++thread) {
        threads.emplace_back([&history, thread] {
            for (int i = 0; i < 200; ++i)
                history.record(reading_after(milliseconds(i * 100 + thread)));
        });
    }
    for (auto& thread : threads)
        thread.join();
    CHECK(history.size() <= LiveHistory::kCapacity);
    CHECK(history.size() >= 1);
}
