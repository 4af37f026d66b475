// Gives memory back to the system after bursts. glibc keeps what threads freed inside its
// arenas, so after a load spike (many scrapes and run listings at once, a run's buffers) the
// agent's RSS would stay at its peak in someone else's task; malloc_trim returns the free pages.
//
// malloc_trim walks every arena (0.1-0.3 ms) and the pages it releases fault back in at the next
// request, so it runs only after a burst: when the activity count grew by kActivityWorthATrim
// since the last trim (new page faults; a finished run, which frees memory without faults,
// counts as that much), `settle` after the burst was noticed, again
// `follow_up` later (what was still in use then, the serving threads the burst started, has
// been freed by now; a burst noticed before that is trimmed `settle` after it, as its own), and
// once every `forced` interval whatever happened. Every pass trims.
//
// The thread sleeps between passes: the serving and the runs tell it (TrimNotices) when there is
// a burst's worth, on their own threads, where telling costs a getrusage and an atomic compare.
// Each wake of a sleeping thread costs ~90 us of CPU on the test VM: an agent that looked every
// 2 s spent more on looking than on anything a quiet task asks of it.
//
// Caches the serving keeps (rendered run listings) are dropped on the first pass nobody used
// them.
//
// Code is released less often than heap: the pages of code and read-only data are dropped
// (app/unwritten_pages) on the first pass, after start-up, and on the pass after a run finished.
// Each drop costs the next requests their code's page faults again, so it is not done after
// every burst: the page's polls would fault their code back in every few seconds. Only the
// linker's tables, which no request reads once its functions are bound, go on every trim.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
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

// Drops caches nobody used since the previous pass (true when it dropped one); the pass trims.
using CacheRelease = std::function<bool()>;

// This process's minor page faults so far: a fault is the first touch of a page, so without
// new faults no new page became resident.
std::uint64_t minor_page_faults();

// What the serving and the runs tell the trimmer, from any thread. Made before them (they hold
// a reference), the trimmer after the SignalWatcher.
class TrimNotices {
  public:
    // 256 KiB of newly touched pages: what the page's polls touch (20-70 pages after a trim)
    // is reused by the next poll as it is; GET /openapi.json (1.3 MiB) is not left behind.
    static constexpr std::uint64_t kActivityWorthATrim = 64;

    explicit TrimNotices(ActivityCount page_faults = minor_page_faults);

    // Work was done (a connection served): wakes the trimmer when it touched a burst's worth of
    // new pages since the last trim.
    void worked();
    // Memory was freed without touching pages (a run ended): a burst.
    void freed();

    // For the trimmer: page faults, plus a burst's worth for each freeing.
    std::uint64_t activity() const;
    std::uint64_t freeings() const;
    void trimmed_at(std::uint64_t activity);
    // Sleeps up to `timeout`; true when woken by a burst (false on timeout or stop).
    bool wait_for_burst(std::stop_token stop, std::chrono::milliseconds timeout);
    // Sleeps `duration` whatever is noticed meanwhile (a burst is served whole before a trim).
    void sleep(std::stop_token stop, std::chrono::milliseconds duration);

  private:
    bool burst_since_trim() const;
    void wake();

    const ActivityCount page_faults_;
    std::atomic<std::uint64_t> freed_{0};
    std::atomic<std::uint64_t> activity_at_trim_{0};
    std::mutex mutex_;
    std::condition_variable_any woken_;
    bool burst_ = false;
};

// When the trimmer's passes come.
struct TrimTimes {
    std::chrono::milliseconds settle;     // from a noticed burst to its pass
    std::chrono::milliseconds follow_up;  // from that pass to the one after it
    // However quiet the agent, one pass trims this often.
    std::chrono::milliseconds forced = std::chrono::minutes(1);
};

class MemoryTrimmer {
  public:
    // Starts a thread that sleeps until `notices` wakes it or `times.forced` passed; a burst is
    // trimmed `settle` after it was noticed, and once more `follow_up` later. Start-up counts as
    // a burst. Construct it after the SignalWatcher.
    MemoryTrimmer(TrimTimes times, TrimNotices& notices, CodeRelease code = {},
                  CacheRelease caches = {});
    ~MemoryTrimmer();
    MemoryTrimmer(const MemoryTrimmer&) = delete;
    MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

    // How many passes it made, and how many of those the forced interval brought (for tests).
    struct Counts {
        unsigned long passes = 0;
        unsigned long forced = 0;
        unsigned long code_releases = 0;
        unsigned long table_releases = 0;
    };
    Counts counts() const;

  private:
    enum class Pass { settled, follow_up, forced };
    void loop(std::stop_token stop);
    void pass(Pass kind);
    bool code_due();

    const TrimTimes times_;
    TrimNotices& notices_;
    const CodeRelease code_;
    const CacheRelease caches_;
    mutable std::mutex mutex_;
    Counts counts_;
    // Owned by the thread.
    bool code_released_once_ = false;
    std::uint64_t code_epoch_released_ = 0;
    std::jthread thread_;  // last: starts after the members it uses exist
};

}  // namespace hostprobe::app
