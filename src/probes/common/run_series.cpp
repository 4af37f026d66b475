#include "probes/common/run_series.hpp"

#include <cmath>
#include <stdexcept>

#include "core/result_reads.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using namespace result_reads;

constexpr double kFineUntil = 5;      // seconds of 100 ms slices
constexpr double kMediumUntil = 300;  // seconds of 1 s slices

template <typename T>
std::optional<T> change(const std::optional<T>& from, const std::optional<T>& to) {
    if (!from || !to || *to < *from) return std::nullopt;  // a counter reset is no figure
    return *to - *from;
}

std::optional<double> per_second(const std::optional<double>& value, double seconds) {
    if (!value || seconds <= 0) return std::nullopt;
    return *value / seconds;
}

template <typename T>
void put_if(json& out, const char* key, const std::optional<T>& value) {
    if (value) out[key] = *value;
}

}  // namespace

std::optional<double> SeriesSlice::work_rate() const {
    return per_second(work, seconds);
}
std::optional<double> SeriesSlice::cores_used() const {
    return per_second(cpu_seconds, seconds);
}
std::optional<double> SeriesSlice::steal_share() const {
    return per_second(steal_seconds, seconds);
}

double next_slice_end(double at_seconds) {
    const double step = at_seconds < kFineUntil - 1e-9     ? 0.1
                        : at_seconds < kMediumUntil - 1e-9 ? 1.0
                                                           : 10.0;
    // Slices end on multiples of their step, so a late reading does not shift every later one.
    return (std::floor(at_seconds / step + 1e-6) + 1) * step;
}

SeriesSlice slice_between(const SeriesReading& from, const SeriesReading& to) {
    SeriesSlice slice;
    slice.start_seconds = from.at_seconds;
    slice.seconds = to.at_seconds - from.at_seconds;
    slice.work = change(from.work, to.work);
    slice.cpu_seconds = change(from.cpu_seconds, to.cpu_seconds);
    if (from.throttling && to.throttling) {
        slice.periods = change<uint64_t>(from.throttling->periods, to.throttling->periods);
        slice.throttled_periods =
            change<uint64_t>(from.throttling->throttled_periods, to.throttling->throttled_periods);
        slice.throttled_seconds =
            change<double>(from.throttling->throttled_seconds, to.throttling->throttled_seconds);
    }
    slice.steal_seconds = change(from.steal_seconds, to.steal_seconds);
    slice.phase = from.phase;
    return slice;
}

SeriesBuilder::SeriesBuilder(SeriesReading first)
    : previous_(std::move(first)), slice_end_(next_slice_end(previous_.at_seconds)) {}

bool SeriesBuilder::add(const SeriesReading& reading) {
    if (reading.at_seconds + 1e-9 < slice_end_) return false;
    close(reading);
    return true;
}

void SeriesBuilder::finish(const SeriesReading& last) {
    if (last.at_seconds > previous_.at_seconds) close(last);
}

void SeriesBuilder::close(const SeriesReading& reading) {
    if (slices_.size() < kMaxSlices) slices_.push_back(slice_between(previous_, reading));
    previous_ = reading;
    slice_end_ = next_slice_end(reading.at_seconds);
}

json series_json(const std::vector<SeriesSlice>& slices, const std::string& work_key) {
    json out = json::array();
    for (const auto& slice : slices) {
        json item = {{"start_seconds", slice.start_seconds}, {"seconds", slice.seconds}};
        put_if(item, work_key.c_str(), slice.work);
        put_if(item, "cpu_seconds", slice.cpu_seconds);
        put_if(item, "periods", slice.periods);
        put_if(item, "throttled_periods", slice.throttled_periods);
        put_if(item, "throttled_seconds", slice.throttled_seconds);
        put_if(item, "steal_seconds", slice.steal_seconds);
        if (!slice.phase.empty()) item["phase"] = slice.phase;
        out.push_back(std::move(item));
    }
    return out;
}

std::vector<SeriesSlice> series_from_json(const json& in, const std::string& work_key) {
    if (!in.is_array()) throw std::invalid_argument("series is not an array");
    if (in.size() > SeriesBuilder::kMaxSlices) throw std::out_of_range("series is too long");
    std::vector<SeriesSlice> slices;
    for (const auto& item : in) {
        if (!item.is_object()) throw std::invalid_argument("a series slice is not an object");
        SeriesSlice slice;
        slice.start_seconds = non_negative_or_throw(item.at("start_seconds"));
        slice.seconds = non_negative_or_throw(item.at("seconds"));
        read_if_present(item, work_key.c_str(), slice.work, as_seconds);  // non-negative
        read_if_present(item, "cpu_seconds", slice.cpu_seconds, as_seconds);
        read_if_present(item, "periods", slice.periods, as_count);
        read_if_present(item, "throttled_periods", slice.throttled_periods, as_count);
        read_if_present(item, "throttled_seconds", slice.throttled_seconds, as_seconds);
        read_if_present(item, "steal_seconds", slice.steal_seconds, as_seconds);
        read_if_present(item, "phase", slice.phase, as_string);
        slices.push_back(std::move(slice));
    }
    return slices;
}

SeriesSlice example_series_slice() {
    return SeriesSlice{0, 1, 1e9, 0.9, 10, 1, 0.01, 0.001, "aes-128-ctr/16384"};
}

SeriesSlice example_sparse_series_slice() {
    return SeriesSlice{.start_seconds = 1, .seconds = 1};
}

}  // namespace hostprobe::probes
