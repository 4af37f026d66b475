#include "probes/disk/second_latencies.hpp"

#include <algorithm>

namespace hostprobe::probes {

namespace {

std::optional<uint64_t> p99_of(const LatencyHistogram& histogram) {
    if (histogram.count() == 0) return std::nullopt;
    return histogram.percentiles({99})[0];
}

}  // namespace

SecondLatencies::SecondLatencies(unsigned jobs) : next_second_(jobs, 0) {}

void SecondLatencies::hand_over(unsigned job, size_t second, const LatencyHistogram& read,
                                const LatencyHistogram& write, size_t next_second) {
    const std::lock_guard lock(mutex_);
    // Already summed up only when this job was stuck past kMaxOpenSeconds.
    if (second >= closed_before_ && read.count() + write.count() > 0) {
        auto& open = open_[second];
        if (!open) open = std::make_unique<OpenSecond>();
        open->read.merge(read);
        open->write.merge(write);
    }
    advance(job, next_second);
}

void SecondLatencies::finish(unsigned job) {
    const std::lock_guard lock(mutex_);
    advance(job, SIZE_MAX);
}

size_t SecondLatencies::open_seconds() const {
    const std::lock_guard lock(mutex_);
    return open_.size();
}

void SecondLatencies::advance(unsigned job, size_t next_second) {
    next_second_.at(job) = std::max(next_second_.at(job), next_second);
    close_before(*std::min_element(next_second_.begin(), next_second_.end()));
    while (open_.size() > kMaxOpenSeconds)
        close_before(open_.begin()->first + 1);
}

void SecondLatencies::close_before(size_t second) {
    while (!open_.empty() && open_.begin()->first < second) {
        close(open_.begin()->first, *open_.begin()->second);
        open_.erase(open_.begin());
    }
    closed_before_ = std::max(closed_before_, second);
}

void SecondLatencies::close(size_t second, const OpenSecond& merged) {
    if (read_p99_.size() <= second) {
        read_p99_.resize(second + 1);
        write_p99_.resize(second + 1);
    }
    read_p99_[second] = p99_of(merged.read);
    write_p99_[second] = p99_of(merged.write);
}

LatencySeries SecondLatencies::padded(const LatencySeries& series, size_t seconds) {
    LatencySeries out(series.begin(), series.begin() + static_cast<std::ptrdiff_t>(
                                                           std::min(seconds, series.size())));
    out.resize(seconds);
    return out;
}

}  // namespace hostprobe::probes
