#include "app/memory_trimmer.hpp"

#include <malloc.h>
#include <sys/resource.h>

namespace hostprobe::app {

std::uint64_t minor_page_faults() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::uint64_t>(usage.ru_minflt);
}

TrimNotices::TrimNotices(ActivityCount page_faults)
    : page_faults_(std::move(page_faults)), activity_at_trim_(page_faults_()) {}

std::uint64_t TrimNotices::activity() const {
    return page_faults_() + kActivityWorthATrim * freeings();
}

std::uint64_t TrimNotices::freeings() const {
    return freed_.load(std::memory_order_relaxed);
}

bool TrimNotices::burst_since_trim() const {
    return activity() >= activity_at_trim_.load(std::memory_order_relaxed) + kActivityWorthATrim;
}

void TrimNotices::worked() {
    if (burst_since_trim()) wake();
}

void TrimNotices::freed() {
    freed_.fetch_add(1, std::memory_order_relaxed);
    wake();
}

void TrimNotices::wake() {
    {
        std::lock_guard lock(mutex_);
        if (burst_) return;
        burst_ = true;
    }
    woken_.notify_one();
}

void TrimNotices::trimmed_at(std::uint64_t activity) {
    activity_at_trim_.store(activity, std::memory_order_relaxed);
}

bool TrimNotices::wait_for_burst(std::stop_token stop, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    const bool burst = woken_.wait_for(lock, stop, timeout, [this] { return burst_; });
    burst_ = false;
    return burst && !stop.stop_requested();
}

void TrimNotices::sleep(std::stop_token stop, std::chrono::milliseconds duration) {
    std::unique_lock lock(mutex_);
    // Wakes on request_stop only; what was noticed meanwhile is the pass's to trim.
    woken_.wait_for(lock, stop, duration, [] { return false; });
    burst_ = false;
}

MemoryTrimmer::MemoryTrimmer(TrimTimes times, TrimNotices& notices, CodeRelease code,
                             CacheRelease caches)
    : times_(times),
      notices_(notices),
      code_(std::move(code)),
      caches_(std::move(caches)),
      thread_([this](std::stop_token stop) { loop(stop); }) {}

MemoryTrimmer::~MemoryTrimmer() {
    thread_.request_stop();  // the waits take the stop token: they return at once
}

MemoryTrimmer::Counts MemoryTrimmer::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
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
    // Start-up is a burst: its first pass also releases the code that only starting ran.
    notices_.sleep(stop, times_.settle);
    Pass kind = Pass::settled;
    while (!stop.stop_requested()) {
        pass(kind);
        // After a burst's pass, its follow-up; a burst noticed first is trimmed as its own.
        const auto wait = kind == Pass::settled ? times_.follow_up : times_.forced;
        if (notices_.wait_for_burst(stop, wait)) {
            notices_.sleep(stop, times_.settle);
            kind = Pass::settled;
        } else {
            kind = kind == Pass::settled ? Pass::follow_up : Pass::forced;
        }
    }
}

void MemoryTrimmer::pass(Pass kind) {
    if (caches_) caches_();
    const bool release_code = code_due();
    if (release_code) code_.release();
    // Walks every arena and releases whole free pages, from the middle of heaps too.
    malloc_trim(0);
    if (code_.release_tables) code_.release_tables();
    // Counted from here: a trim takes no page faults of its own.
    notices_.trimmed_at(notices_.activity());
    std::lock_guard lock(mutex_);
    ++counts_.passes;
    if (kind == Pass::forced) ++counts_.forced;
    if (release_code) ++counts_.code_releases;
    if (code_.release_tables) ++counts_.table_releases;
}

}  // namespace hostprobe::app
