#include "probes/common/series_sampler.hpp"

#include "core/elapsed.hpp"
#include "host/proc_stat.hpp"
#include "probes/common/agent_cpu_time.hpp"

namespace hostprobe::probes {

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
