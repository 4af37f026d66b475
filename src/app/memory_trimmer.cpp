#include "app/memory_trimmer.hpp"

#include <malloc.h>
#include <sys/resource.h>

namespace hostprobe::app {

std::uint64_t minor_page_faults() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::uint64_t>(usage.ru_minflt);
}

MemoryTrimmer::MemoryTrimmer(std::chrono::milliseconds interval, ActivityCount activity,
                             CodeRelease code, CacheRelease caches)
    : interval_(interval),
      activity_(std::move(activity)),
      code_(std::move(code)),
      caches_(std::move(caches)),
      activity_at_trim_(activity_()),
      thread_([this](std::stop_token stop) { loop(stop); }) {}

MemoryTrimmer::~MemoryTrimmer() {
    thread_.request_stop();
    wake_.notify_all();
}

MemoryTrimmer::Counts MemoryTrimmer::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
}

bool MemoryTrimmer::due(std::uint64_t activity) {
    const bool burst = activity >= activity_at_trim_ + kActivityWorthATrim;
    const bool trim = burst || trim_once_more_ || ++passes_since_trim_ >= kPassesBetweenForcedTrims;
    trim_once_more_ = burst;
    if (trim) passes_since_trim_ = 0;
    return trim;
}

bool MemoryTrimmer::code_due() {
    if (!code_.release) return false;
    const std::uint64_t epoch = code_.epoch ? code_.epoch() : 0;
    if (code_released_once_ && epoch == code_epoch_released_) return false;
    code_released_once_ = true;
    code_epoch_released_ = epoch;
    return true;
}

void MemoryTrimmer::loop(std::stop_token stop) {
    std::unique_lock<std::mutex> lock(mutex_);
    // The stop_token wait wakes on request_stop; the predicate's value says nothing about why.
    while (true) {
        wake_.wait_for(lock, stop, interval_, [] { return false; });
        if (stop.stop_requested()) return;
        lock.unlock();
        const bool dropped = caches_ && caches_();
        bool trim = due(activity_());
        if (dropped && !trim) {
            trim = true;
            passes_since_trim_ = 0;
        }
        const bool release_code = code_due();
        if (release_code) code_.release();
        if (trim) {
            // Walks every arena and releases whole free pages, from the middle of heaps too.
            malloc_trim(0);
            if (code_.release_tables) code_.release_tables();
            // Counted from here: a trim takes no page faults of its own.
            activity_at_trim_ = activity_();
        }
        lock.lock();
        ++counts_.passes;
        if (trim) ++counts_.trims;
        if (release_code) ++counts_.code_releases;
        if (trim && code_.release_tables) ++counts_.table_releases;
    }
}

}  // namespace hostprobe::app
