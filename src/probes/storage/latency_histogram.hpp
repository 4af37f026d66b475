// Latency kept the way fio keeps it: log-linear buckets (64 per power of two, so a bucket is at
// most 1/64 wide and its midpoint within ~0.8% of any value in it), fixed in size however many
// I/Os are recorded. Percentiles are read with fio's rule, so equal inputs give fio's numbers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace hostprobe::probes {

class LatencyHistogram {
  public:
    static constexpr unsigned kBits = 6;                // fio's FIO_IO_U_PLAT_BITS
    static constexpr unsigned kPerGroup = 1u << kBits;  // FIO_IO_U_PLAT_VAL
    static constexpr unsigned kGroups = 29;             // FIO_IO_U_PLAT_GROUP_NR
    static constexpr unsigned kBuckets = kGroups * kPerGroup;

    void record(uint64_t nanoseconds);
    void merge(const LatencyHistogram& other);

    uint64_t count() const { return count_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    double mean() const { return count_ ? mean_ : 0; }
    double stddev() const;  // sample standard deviation, as fio prints
    // Value (ns) of each percentile (0..100], fio's calc_clat_percentiles.
    std::vector<uint64_t> percentiles(const std::vector<double>& points) const;
    // Non-empty buckets: bucket value (ns) -> count.
    std::map<uint64_t, uint64_t> bins() const;

    static unsigned bucket_of(uint64_t nanoseconds);
    static uint64_t value_of(unsigned bucket);

    // fio's default percentile list.
    static const std::vector<double>& fio_percentiles();

  private:
    std::array<uint64_t, kBuckets> buckets_{};
    uint64_t count_ = 0;
    uint64_t min_ = UINT64_MAX;
    uint64_t max_ = 0;
    double mean_ = 0;  // Welford's running mean and squared deviations
    double m2_ = 0;
};

}  // namespace hostprobe::probes
