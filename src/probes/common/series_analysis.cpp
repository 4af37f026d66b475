#include "probes/common/series_analysis.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>

#include "core/result_reads.hpp"
#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

constexpr double kMinRelativeChange = 0.3;
constexpr double kMinStretchSeconds = 1.0;
constexpr double kFineSliceSeconds = 0.15;  // a 100 ms slice, with some lateness
constexpr double kStealRise = 0.05;         // CPUs' worth
constexpr double kThrottledRise = 0.2;      // share of periods

using Rate = std::function<std::optional<double>(const SeriesSlice&)>;

// The rate every slice has (else none): work per second when the run measured one thing.
std::optional<std::pair<std::string, Rate>> measure_of(const std::vector<SeriesSlice>& slices) {
    if (slices.empty()) return std::nullopt;
    for (const auto& slice : slices) {
        if (slice.phase != slices.front().phase) return std::nullopt;
    }
    auto all_have = [&](const Rate& rate) {
        for (const auto& slice : slices) {
            if (slice.seconds <= 0 || !rate(slice)) return false;
        }
        return true;
    };
    const Rate work = [](const SeriesSlice& slice) { return slice.work_rate(); };
    if (all_have(work)) return std::make_pair(std::string("work_per_second"), work);
    const Rate cores = [](const SeriesSlice& slice) { return slice.cores_used(); };
    if (all_have(cores)) return std::make_pair(std::string("cores_used"), cores);
    return std::nullopt;
}

// Time-weighted mean of a per-second figure over slices [from, to); none when a slice lacks it.
std::optional<double> weighted_mean(const std::vector<SeriesSlice>& slices, size_t from, size_t to,
                                    const Rate& rate) {
    double seconds = 0, sum = 0;
    for (size_t i = from; i < to; ++i) {
        const auto value = rate(slices[i]);
        if (!value) return std::nullopt;
        seconds += slices[i].seconds;
        sum += *value * slices[i].seconds;
    }
    if (seconds <= 0) return std::nullopt;
    return sum / seconds;
}

std::optional<double> throttled_share(const std::vector<SeriesSlice>& slices, size_t from,
                                      size_t to) {
    uint64_t periods = 0, throttled = 0;
    for (size_t i = from; i < to; ++i) {
        if (!slices[i].periods || !slices[i].throttled_periods) return std::nullopt;
        periods += *slices[i].periods;
        throttled += *slices[i].throttled_periods;
    }
    if (periods == 0) return std::nullopt;
    return static_cast<double>(throttled) / static_cast<double>(periods);
}

// Least squares split: the index k where slices [0, k) and [k, n) each fit their own mean best.
std::optional<size_t> best_split(const std::vector<SeriesSlice>& slices, const Rate& rate) {
    const size_t n = slices.size();
    std::vector<double> w(n + 1, 0), wr(n + 1, 0), wrr(n + 1, 0);  // prefix sums
    for (size_t i = 0; i < n; ++i) {
        const double r = *rate(slices[i]);
        w[i + 1] = w[i] + slices[i].seconds;
        wr[i + 1] = wr[i] + slices[i].seconds * r;
        wrr[i + 1] = wrr[i] + slices[i].seconds * r * r;
    }
    auto squared_error = [&](size_t from, size_t to) {
        const double weight = w[to] - w[from];
        const double sum = wr[to] - wr[from];
        return (wrr[to] - wrr[from]) - sum * sum / weight;
    };
    std::optional<size_t> best;
    double best_cost = 0;
    for (size_t k = 1; k < n; ++k) {
        if (w[k] < kMinStretchSeconds || w[n] - w[k] < kMinStretchSeconds) continue;
        const double cost = squared_error(0, k) + squared_error(k, n);
        if (!best || cost < best_cost) {
            best = k;
            best_cost = cost;
        }
    }
    return best;
}

// The slices that measured something: a probe names its phase once set up, so the set-up before
// (and any pause between) its phases does not count as a change of pace.
std::vector<SeriesSlice> measuring(const std::vector<SeriesSlice>& slices) {
    std::vector<SeriesSlice> kept;
    for (const auto& slice : slices) {
        if (!slice.phase.empty()) kept.push_back(slice);
    }
    return kept.empty() ? slices : kept;
}

}  // namespace

double SeriesChange::relative() const {
    return before > 0 ? (after - before) / before : 0;
}

std::optional<SeriesChange> find_series_change(const std::vector<SeriesSlice>& all_slices) {
    const std::vector<SeriesSlice> slices = measuring(all_slices);
    const auto measure = measure_of(slices);
    if (!measure) return std::nullopt;
    const auto& [name, rate] = *measure;
    const auto split = best_split(slices, rate);
    if (!split) return std::nullopt;
    SeriesChange change;
    change.measure = name;
    change.at_seconds = slices[*split].start_seconds;
    change.before = *weighted_mean(slices, 0, *split, rate);
    change.after = *weighted_mean(slices, *split, slices.size(), rate);
    const double larger = std::max(change.before, change.after);
    if (larger <= 0 || std::abs(change.after - change.before) < kMinRelativeChange * larger)
        return std::nullopt;
    const Rate steal = [](const SeriesSlice& slice) { return slice.steal_share(); };
    change.steal_before = weighted_mean(slices, 0, *split, steal);
    change.steal_after = weighted_mean(slices, *split, slices.size(), steal);
    change.throttled_before = throttled_share(slices, 0, *split);
    change.throttled_after = throttled_share(slices, *split, slices.size());
    return change;
}

std::optional<ThrottleRhythm> throttle_rhythm(const std::vector<SeriesSlice>& slices) {
    ThrottleRhythm rhythm;
    double seconds = 0, cpu = 0, throttled = 0;
    uint64_t periods = 0;
    for (const auto& slice : slices) {
        if (slice.seconds <= 0 || slice.seconds > kFineSliceSeconds) continue;
        if (!slice.cpu_seconds || !slice.throttled_periods || !slice.throttled_seconds) continue;
        ++rhythm.slices;
        if (*slice.throttled_periods > 0) ++rhythm.throttled_slices;
        periods += slice.periods.value_or(0);
        seconds += slice.seconds;
        cpu += *slice.cpu_seconds;
        throttled += *slice.throttled_seconds;
    }
    if (rhythm.slices == 0 || periods == 0) return std::nullopt;  // no quota, no rhythm
    rhythm.cpu_ms_per_100ms = cpu / seconds * 100;
    rhythm.throttled_ms_per_100ms = throttled / seconds * 100;
    return rhythm;
}

std::string describe_series(const std::vector<SeriesSlice>& slices, const std::string& work_name) {
    std::string out;
    if (const auto rhythm = throttle_rhythm(slices);
        rhythm && rhythm->throttled_slices * 2 >= rhythm->slices) {
        out += "In " + std::to_string(rhythm->throttled_slices) + " of the first " +
               std::to_string(rhythm->slices) +
               " 100 ms slices the CFS quota throttled the task: " +
               format_fixed(rhythm->throttled_ms_per_100ms, 0) + " of every 100 ms throttled, " +
               format_fixed(rhythm->cpu_ms_per_100ms, 0) + " ms of CPU used.";
    }
    const auto change = find_series_change(slices);
    if (!change) return out;
    const std::string what = change->measure == "cores_used" ? "CPU use" : work_name;
    const bool fell = change->after < change->before;
    std::string sentence = what + (fell ? " fell " : " rose ") +
                           format_percent(std::abs(change->relative())) + " after " +
                           format_fixed(change->at_seconds, 1) + " s";
    if (fell && change->steal_before && change->steal_after &&
        *change->steal_after - *change->steal_before >= kStealRise) {
        sentence += " while steal rose from " + format_fixed(*change->steal_before, 2) + " to " +
                    format_fixed(*change->steal_after, 2) +
                    " CPUs: CPU credits ran out (burstable instance?) or a neighbour took the "
                    "host's CPUs.";
    } else if (fell && change->throttled_before && change->throttled_after &&
               *change->throttled_after - *change->throttled_before >= kThrottledRise) {
        sentence += " while CFS throttling rose from " + format_percent(*change->throttled_before) +
                    " to " + format_percent(*change->throttled_after) +
                    " of periods: the CPU quota was lowered during the run.";
    } else {
        sentence += ".";
    }
    return out.empty() ? sentence : out + " " + sentence;
}

std::string series_summary_line(const std::vector<SeriesSlice>& slices) {
    if (slices.empty()) return "";
    const SeriesSlice& last = slices.back();
    std::string line = "Series: " + std::to_string(slices.size()) + " slices over " +
                       format_fixed(last.start_seconds + last.seconds, 1) + " s";
    const Rate cores = [](const SeriesSlice& slice) { return slice.cores_used(); };
    if (const auto used = weighted_mean(slices, 0, slices.size(), cores))
        line += "; CPU " + format_fixed(*used, 2) + " cores";
    if (const auto rhythm = throttle_rhythm(slices)) {
        line += "; throttled in " + std::to_string(rhythm->throttled_slices) + " of " +
                std::to_string(rhythm->slices) + " 100 ms slices (" +
                format_fixed(rhythm->cpu_ms_per_100ms, 0) + " ms CPU per 100 ms)";
    }
    const Rate steal = [](const SeriesSlice& slice) { return slice.steal_share(); };
    if (const auto stolen = weighted_mean(slices, 0, slices.size(), steal))
        line += "; steal " + format_fixed(*stolen, 2) + " CPUs";
    if (const auto change = find_series_change(slices)) {
        line += "; " + std::string(change->measure == "cores_used" ? "CPU use" : "work rate") +
                " " + (change->relative() >= 0 ? "+" : "") + format_percent(change->relative()) +
                " at " + format_fixed(change->at_seconds, 1) + " s";
    }
    return line;
}

json series_change_json(const SeriesChange& change) {
    json out = {{"measure", change.measure},
                {"at_seconds", change.at_seconds},
                {"before", change.before},
                {"after", change.after}};
    if (change.steal_before) out["steal_before"] = *change.steal_before;
    if (change.steal_after) out["steal_after"] = *change.steal_after;
    if (change.throttled_before) out["throttled_share_before"] = *change.throttled_before;
    if (change.throttled_after) out["throttled_share_after"] = *change.throttled_after;
    return out;
}

SeriesChange series_change_from_json(const json& in) {
    using namespace result_reads;
    if (!in.is_object()) throw std::invalid_argument("series_change is not an object");
    SeriesChange change;
    change.measure = in.at("measure").get<std::string>();
    change.at_seconds = non_negative_or_throw(in.at("at_seconds"));
    change.before = non_negative_or_throw(in.at("before"));
    change.after = non_negative_or_throw(in.at("after"));
    read_if_present(in, "steal_before", change.steal_before, as_seconds);
    read_if_present(in, "steal_after", change.steal_after, as_seconds);
    read_if_present(in, "throttled_share_before", change.throttled_before, as_seconds);
    read_if_present(in, "throttled_share_after", change.throttled_after, as_seconds);
    return change;
}

SeriesChange example_series_change() {
    return SeriesChange{"work_per_second", 30, 1e9, 5e8, 0.01, 0.2, 0, 0.5};
}

SeriesChange example_sparse_series_change() {
    return SeriesChange{.measure = "cores_used", .at_seconds = 30, .before = 2, .after = 1};
}

}  // namespace hostprobe::probes
