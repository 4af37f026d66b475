// Takes the readings of a run's series on a thread of its own while the probe measures, so the
// slices keep their 100 ms rhythm whatever the probe's loops do. The probe counts its work into
// an atomic and names what it is doing (its phase); the sampler reads the rest itself.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/sysroot.hpp"
#include "host/host_facts.hpp"
#include "probes/common/run_series.hpp"

namespace hostprobe::probes {

// Where a run's counters come from: the CPU time of the agent and its children
// (agent_cpu_time.hpp; not the cgroup's, which in the root cgroup, or where cpu and cpuacct are
// separate hierarchies, counts other processes too); the CFS counters of the cgroup that
// enforces the quota; steal on the CPUs of our cpuset. Machine files are read through the
// sysroot.
class SeriesSources {
  public:
    SeriesSources(const SysRoot& root, const host::HostFacts& facts);
    SeriesReading read(double at_seconds) const;

  private:
    const SysRoot& root_;
    const host::HostFacts& facts_;
};

class SeriesSampler {
  public:
    // Takes the first reading now; `work` (may be null) is the probe's running total.
    SeriesSampler(const SeriesSources& sources, const std::atomic<uint64_t>* work);
    ~SeriesSampler();
    SeriesSampler(const SeriesSampler&) = delete;
    SeriesSampler& operator=(const SeriesSampler&) = delete;

    void set_phase(std::string phase);
    // Takes the last reading, ends the thread and returns the slices (once).
    std::vector<SeriesSlice> finish();

  private:
    SeriesReading reading_now();
    void sample_until_stopped();

    const SeriesSources& sources_;
    const std::atomic<uint64_t>* work_;
    const std::chrono::steady_clock::time_point started_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::string phase_;
    SeriesBuilder builder_;
    std::thread thread_;
};

}  // namespace hostprobe::probes
