#include "probes/common/series_sampler.hpp"

#include <sys/resource.h>
#include <sys/time.h>

#include <ctime>

#include "core/elapsed.hpp"
#include "host/proc_stat.hpp"

namespace hostprobe::probes {

namespace {

double seconds_of(const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

// This process's CPU time and that of the children it has reaped (the system probe's execl,
// spawn and shell tests reap theirs as they go).
double agent_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    rusage children{};
    getrusage(RUSAGE_CHILDREN, &children);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9 +
           seconds_of(children.ru_utime) + seconds_of(children.ru_stime);
}

}  // namespace

SeriesSources::SeriesSources(const SysRoot& root, const host::HostFacts& facts)
    : root_(root), facts_(facts) {}

SeriesReading SeriesSources::read(double at_seconds) const {
    SeriesReading reading;
    reading.at_seconds = at_seconds;
    const host::CgroupFacts& cgroup = facts_.cgroup;
    reading.cpu_seconds = agent_cpu_seconds();
    if (cgroup.throttling_source) {
        if (auto counters = host::read_throttling(root_, *cgroup.throttling_source))
            reading.throttling = *counters;
    }
    if (auto steal = host::read_steal_seconds(root_, cgroup.cpuset.value_or(CpuSet())))
        reading.steal_seconds = *steal;
    return reading;
}

SeriesSampler::SeriesSampler(const SeriesSources& sources, const std::atomic<uint64_t>* work)
    : sources_(sources),
      work_(work),
      started_(std::chrono::steady_clock::now()),
      builder_(reading_now()),
      thread_([this] { sample_until_stopped(); }) {}

SeriesSampler::~SeriesSampler() {
    finish();
}

void SeriesSampler::set_phase(std::string phase) {
    std::lock_guard lock(mutex_);
    phase_ = std::move(phase);
}

SeriesReading SeriesSampler::reading_now() {
    SeriesReading reading = sources_.read(core::seconds_since(started_));
    if (work_) reading.work = static_cast<double>(work_->load(std::memory_order_relaxed));
    std::lock_guard lock(mutex_);
    reading.phase = phase_;
    return reading;
}

void SeriesSampler::sample_until_stopped() {
    while (true) {
        const auto slice_end =
            started_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(builder_.slice_end()));
        {
            std::unique_lock lock(mutex_);
            if (wake_.wait_until(lock, slice_end, [this] { return stopping_; })) return;
        }
        builder_.add(reading_now());
    }
}

std::vector<SeriesSlice> SeriesSampler::finish() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return builder_.slices();
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    builder_.finish(reading_now());
    return builder_.slices();
}

}  // namespace hostprobe::probes
