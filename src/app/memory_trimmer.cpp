#include "app/memory_trimmer.hpp"

#include <malloc.h>

namespace hostprobe::app {

MemoryTrimmer::MemoryTrimmer(std::chrono::milliseconds interval)
    : interval_(interval), thread_([this](std::stop_token stop) { loop(stop); }) {}

MemoryTrimmer::~MemoryTrimmer() {
    thread_.request_stop();
    wake_.notify_all();
}

unsigned long MemoryTrimmer::trims() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return trims_;
}

void MemoryTrimmer::loop(std::stop_token stop) {
    std::unique_lock<std::mutex> lock(mutex_);
    // The stop_token wait wakes on request_stop; the predicate's value says nothing about why.
    while (true) {
        wake_.wait_for(lock, stop, interval_, [] { return false; });
        if (stop.stop_requested()) return;
        lock.unlock();
        // Walks every arena and releases whole free pages, from the middle of heaps too.
        malloc_trim(0);
        lock.lock();
        ++trims_;
    }
}

}  // namespace hostprobe::app
