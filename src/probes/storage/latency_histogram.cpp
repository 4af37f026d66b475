#include "probes/storage/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace hostprobe::probes {

unsigned LatencyHistogram::bucket_of(uint64_t value) {
    const unsigned msb = value == 0 ? 0 : 63u - static_cast<unsigned>(__builtin_clzll(value));
    if (msb <= kBits) return static_cast<unsigned>(value);  // small values are exact
    const unsigned error_bits = msb - kBits;
    const unsigned base = (error_bits + 1) << kBits;
    const unsigned offset = (kPerGroup - 1) & static_cast<unsigned>(value >> error_bits);
    return std::min(base + offset, kBuckets - 1);
}

uint64_t LatencyHistogram::value_of(unsigned bucket) {
    if (bucket < (kPerGroup << 1)) return bucket;
    const unsigned error_bits = (bucket >> kBits) - 1;
    const uint64_t base = uint64_t{1} << (error_bits + kBits);
    const uint64_t k = bucket % kPerGroup;
    // The middle of the bucket's range, as fio reports it.
    return base + static_cast<uint64_t>((static_cast<double>(k) + 0.5) *
                                        static_cast<double>(uint64_t{1} << error_bits));
}

void LatencyHistogram::record(uint64_t nanoseconds) {
    ++buckets_[bucket_of(nanoseconds)];
    ++count_;
    min_ = std::min(min_, nanoseconds);
    max_ = std::max(max_, nanoseconds);
    const double delta = static_cast<double>(nanoseconds) - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (static_cast<double>(nanoseconds) - mean_);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
    if (other.count_ == 0) return;
    for (unsigned i = 0; i < kBuckets; ++i)
        buckets_[i] += other.buckets_[i];
    // Chan et al.: combine two Welford summaries.
    const double total = static_cast<double>(count_ + other.count_);
    const double delta = other.mean_ - mean_;
    m2_ += other.m2_ +
           delta * delta * static_cast<double>(count_) * static_cast<double>(other.count_) / total;
    mean_ += delta * static_cast<double>(other.count_) / total;
    count_ += other.count_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

double LatencyHistogram::stddev() const {
    return count_ > 1 ? std::sqrt(m2_ / static_cast<double>(count_ - 1)) : 0;
}

std::vector<uint64_t> LatencyHistogram::percentiles(const std::vector<double>& points) const {
    std::vector<uint64_t> values(points.size(), 0);
    if (count_ == 0 || points.empty()) return values;
    // fio walks the buckets once, handing out each percentile when the running sum reaches it.
    std::vector<size_t> order(points.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return points[a] < points[b]; });
    size_t next = 0;
    uint64_t sum = 0;
    for (unsigned bucket = 0; bucket < kBuckets && next < order.size(); ++bucket) {
        sum += buckets_[bucket];
        while (next < order.size() &&
               static_cast<long double>(sum) >= static_cast<long double>(points[order[next]]) /
                                                    100.0L * static_cast<long double>(count_)) {
            values[order[next++]] = value_of(bucket);
        }
    }
    return values;
}

std::map<uint64_t, uint64_t> LatencyHistogram::bins() const {
    std::map<uint64_t, uint64_t> bins;
    for (unsigned bucket = 0; bucket < kBuckets; ++bucket) {
        if (buckets_[bucket] != 0) bins[value_of(bucket)] += buckets_[bucket];
    }
    return bins;
}

const std::vector<double>& LatencyHistogram::fio_percentiles() {
    static const std::vector<double> points = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                               80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
    return points;
}

}  // namespace hostprobe::probes
