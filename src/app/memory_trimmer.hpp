// Gives memory back to the system after bursts. glibc keeps what threads freed inside its
// arenas, so after a load spike (many scrapes and run listings at once, a run's buffers) the
// agent's RSS would stay at its peak in someone else's task; malloc_trim returns the free pages.
//
// malloc_trim walks every arena (0.1-0.3 ms) and the pages it releases fault back in at the next
// request, so it runs only after a burst: when the activity count grew by kActivityWorthATrim
// since the last trim (new page faults, or a finished run, which counts as that much), on the
// pass after (what was still in use then has been freed by now), and once a minute whatever
// happened. An agent nobody asks anything then costs one getrusage every interval, and one a
// page polls every few seconds reuses its arena's pages instead of faulting them in again.
//
// Caches the serving keeps (rendered run listings) are dropped on the first pass nobody used
// them, and that pass trims.
//
// Code is released less often than heap: the pages of code and read-only data are dropped
// (app/unwritten_pages) on the first pass, after start-up, and on the pass after a run finished.
// Each drop costs the next requests their code's page faults again, so it is not done after
// every burst: the page's polls would fault their code back in every few seconds. Only the
// linker's tables, which no request reads once its functions are bound, go on every trim.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace hostprobe::app {

// A count that grows with what the process may have to give back (in pages).
using ActivityCount = std::function<std::uint64_t()>;

// What to release besides the heap, and when: `release` after `epoch` moved (a finished run);
// `release_tables` (the linker's tables, app/unwritten_pages) on every pass that trims.
struct CodeRelease {
    std::function<std::uint64_t()> epoch;
    std::function<void()> release;
    std::function<void()> release_tables;
};

// Drops caches nobody used since the previous pass; true when it freed something, which the
// same pass then trims (freeing takes no page fault the activity count would see).
using CacheRelease = std::function<bool()>;

// This process's minor page faults so far: a fault is the first touch of a page, so without
// new faults no new page became resident.
std::uint64_t minor_page_faults();

class MemoryTrimmer {
  public:
    // Passes made without a burst before one trims anyway.
    static constexpr unsigned kPassesBetweenForcedTrims = 30;
    // 256 KiB of newly touched pages: what the page's polls touch (20-70 pages after a trim)
    // is reused by the next poll as it is; GET /openapi.json (1.3 MiB) is not left behind.
    static constexpr std::uint64_t kActivityWorthATrim = 64;

    // Starts a thread that looks every `interval`; construct it after the SignalWatcher.
    MemoryTrimmer(std::chrono::milliseconds interval, ActivityCount activity, CodeRelease code = {},
                  CacheRelease caches = {});
    ~MemoryTrimmer();
    MemoryTrimmer(const MemoryTrimmer&) = delete;
    MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

    // How many times it has looked, and how many of those it trimmed (for tests).
    struct Counts {
        unsigned long passes = 0;
        unsigned long trims = 0;
        unsigned long code_releases = 0;
        unsigned long table_releases = 0;
    };
    Counts counts() const;

  private:
    void loop(std::stop_token stop);
    bool due(std::uint64_t activity);
    bool code_due();

    const std::chrono::milliseconds interval_;
    const ActivityCount activity_;
    const CodeRelease code_;
    const CacheRelease caches_;
    mutable std::mutex mutex_;
    std::condition_variable_any wake_;
    Counts counts_;
    // Owned by the thread.
    std::uint64_t activity_at_trim_ = 0;
    bool trim_once_more_ = false;
    unsigned passes_since_trim_ = 0;
    bool code_released_once_ = false;
    std::uint64_t code_epoch_released_ = 0;
    std::jthread thread_;  // last: starts after the members it uses exist
};

}  // namespace hostprobe::app
