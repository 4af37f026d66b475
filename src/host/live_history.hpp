// The recent live readings GET /v1/host computes its rates against: a small bounded ring owned
// by the server (no global), shared by the HTTP threads behind a mutex.
//
// A reading is kept only when it is at least kMinSpacing newer than the newest kept one, so a
// burst of requests cannot push the older readings out; kCapacity of them then span at least
// 16 s. The baseline of a new reading is the oldest kept one within kWindow that is at least
// kMinSpacing old (the widest window up to 10 s, as a dashboard's rate over 10 s would be), or,
// when requests come rarer than that, the newest kept one at least kMinSpacing old.
#pragma once

#include <chrono>
#include <deque>
#include <mutex>
#include <optional>

#include "host/live_reading.hpp"

namespace hostprobe::host {

struct LiveSample {
    LiveReading now;
    std::optional<LiveReading> baseline;  // none on the first request
};

class LiveHistory {
  public:
    static constexpr size_t kCapacity = 16;
    static constexpr std::chrono::steady_clock::duration kMinSpacing = std::chrono::seconds(1);
    static constexpr std::chrono::steady_clock::duration kWindow = std::chrono::seconds(10);

    // Keeps `reading` when due and returns it with its baseline.
    LiveSample record(LiveReading reading);
    size_t size() const;

  private:
    mutable std::mutex mutex_;
    std::deque<LiveReading> readings_;  // oldest first
};

}  // namespace hostprobe::host
