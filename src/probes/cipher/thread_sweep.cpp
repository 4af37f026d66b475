#include "probes/cipher/thread_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "core/result_reads.hpp"
#include "core/stats.hpp"
#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using namespace result_reads;

// Less than this share of the linear gain from one count to the next is "stops growing":
// 1 -> 2 threads under +25%, 4 -> 6 under +12.5%. Well above the noise of a CFS period in a
// short cell (a 1 s cell at half a CPU moved by 10-15%), well below what real cores add.
constexpr double kLinearGainShare = 0.25;

std::string thread_word(size_t threads) {
    return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

std::string cores_text(double cores) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", cores);
    return buffer;
}

double scaling_efficiency(double rate, size_t threads, double base_rate, size_t base_threads) {
    if (base_rate <= 0 || threads == 0) return 0;
    return rate * static_cast<double>(base_threads) / (static_cast<double>(threads) * base_rate);
}

std::vector<CellScaling> scaling_of(const std::vector<SweepCellFigures>& cells,
                                    const std::vector<size_t>& counts, double budget_cores) {
    std::vector<CellScaling> scaling;
    std::map<std::pair<std::string, size_t>, size_t> index;
    for (const auto& cell : cells) {
        const auto key = std::make_pair(cell.cipher, cell.block_bytes);
        if (!index.contains(key)) {
            index[key] = scaling.size();
            scaling.push_back({cell.cipher, cell.block_bytes, {}});
        }
        scaling[index[key]].steps.push_back(
            {.threads = cell.threads,
             .bytes_per_second = cell.bytes_per_second,
             .cpu_bytes_per_second = cell.cpu_bytes_per_second,
             .above_budget = static_cast<double>(cell.threads) > budget_cores,
             .throttling = cell.throttling});
    }
    for (auto& cell : scaling) {
        std::sort(cell.steps.begin(), cell.steps.end(),
                  [](const ScalingStep& a, const ScalingStep& b) { return a.threads < b.threads; });
        // The base is the sweep's smallest count; a cell the run was stopped before has none.
        if (cell.steps.empty() || cell.steps.front().threads != counts.front()) continue;
        const ScalingStep base = cell.steps.front();
        for (auto& step : cell.steps) {
            step.efficiency = scaling_efficiency(step.bytes_per_second, step.threads,
                                                 base.bytes_per_second, base.threads);
        }
    }
    return scaling;
}

const ScalingStep* step_at(const CellScaling& cell, size_t threads) {
    for (const auto& step : cell.steps) {
        if (step.threads == threads) return &step;
    }
    return nullptr;
}

ThreadCountSummary summary_at(const std::vector<CellScaling>& scaling,
                              const std::vector<size_t>& counts, size_t at, double budget_cores) {
    ThreadCountSummary summary{.threads = counts[at],
                               .above_budget = static_cast<double>(counts[at]) > budget_cores};
    std::vector<double> growths, efficiencies;
    bool first = true;
    for (const auto& cell : scaling) {
        const ScalingStep* step = step_at(cell, counts[at]);
        if (step == nullptr) continue;
        efficiencies.push_back(step->efficiency);
        summary.throttling =
            first ? step->throttling : added_counters(summary.throttling, step->throttling);
        first = false;
        if (at == 0) continue;
        const ScalingStep* previous = step_at(cell, counts[at - 1]);
        if (previous != nullptr && previous->bytes_per_second > 0)
            growths.push_back(step->bytes_per_second / previous->bytes_per_second - 1);
    }
    summary.median_efficiency = core::median(efficiencies).value_or(0);
    summary.wall_growth = core::median(growths);
    return summary;
}

std::string throttling_text(const ThreadCountSummary& summary) {
    const auto& counters = *summary.throttling;
    return std::to_string(counters.throttled_periods) + " of " + std::to_string(counters.periods) +
           " scheduler periods (" + format_fixed(counters.throttled_seconds, 2) + " s) at " +
           thread_word(summary.threads);
}

bool was_throttled(const ThreadCountSummary& summary) {
    return summary.throttling && summary.throttling->throttled_periods > 0;
}

std::string sweep_explanation(const ThreadSweep& sweep) {
    const auto& by_threads = sweep.by_threads;
    if (by_threads.size() < 2) {
        return "Measured at " + thread_word(sweep.thread_counts.front()) +
               " only: no scaling to compare.";
    }
    const std::string budget_cores =
        cores_text(sweep.budget_cores) + (sweep.budget_cores == 1 ? " core (" : " cores (") +
        (sweep.budget_source == "cgroup" ? "the cgroup CPU quota" : "the visible CPUs") + ")";
    const std::string budget = "the CPU budget is " + budget_cores;
    if (!sweep.stops_growing_above) {
        const ThreadCountSummary& last = by_threads.back();
        return "The wall-clock figure grows at every step up to " + thread_word(last.threads) +
               " (median efficiency " + format_percent(last.median_efficiency) + "); " + budget +
               ".";
    }
    size_t at = 1;
    while (by_threads[at - 1].threads != *sweep.stops_growing_above)
        ++at;
    const ThreadCountSummary& before = by_threads[at - 1];
    const ThreadCountSummary& after = by_threads[at];
    const double linear_gain =
        static_cast<double>(after.threads) / static_cast<double>(before.threads) - 1;
    std::string text = "Above " + thread_word(before.threads) +
                       " the wall-clock figure stops growing (" + thread_word(after.threads) +
                       ": " + growth_text(*after.wall_growth) + " where linear is " +
                       growth_text(linear_gain) + ", median efficiency " +
                       format_percent(after.median_efficiency) + ")";
    if (!after.above_budget) {
        return text + " although " + thread_word(after.threads) + " fit the CPU budget of " +
               budget_cores +
               ": something else holds them back (other work on the CPUs, hypervisor steal, or "
               "SMT siblings sharing a core).";
    }
    text += ": " + budget + ".";
    if (was_throttled(after)) {
        text += " The cgroup throttled the task in " + throttling_text(after);
        if (before.throttling) text += ", in " + throttling_text(before);
        text += ".";
    } else if (after.throttling && after.throttling->periods > 0) {
        // The quota would have held them back, but other work on the CPUs did so first.
        text += " The cgroup did not throttle the task at " + thread_word(after.threads) +
                ", though: other work on the CPUs held it back before the quota did.";
    }
    return text;
}

json sweep_counters_json(const std::optional<host::ThrottlingCounters>& counters) {
    if (!counters) return nullptr;
    return {{"periods", counters->periods},
            {"throttled_periods", counters->throttled_periods},
            {"throttled_seconds", counters->throttled_seconds}};
}

std::optional<host::ThrottlingCounters> sweep_counters_from(const json& in) {
    if (in.is_null()) return std::nullopt;
    return host::ThrottlingCounters{integer_or_throw<uint64_t>(in.at("periods")),
                                    integer_or_throw<uint64_t>(in.at("throttled_periods")),
                                    non_negative_or_throw(in.at("throttled_seconds"))};
}

const json& array_or_throw(const json& value) {
    if (!value.is_array()) throw std::invalid_argument("not an array: " + value.dump());
    return value;
}

json optional_number(const std::optional<double>& value) {
    return value ? json(*value) : json(nullptr);
}

ScalingStep scaling_step_from(const json& in) {
    return {.threads = integer_or_throw<size_t>(in.at("threads")),
            .bytes_per_second = non_negative_or_throw(in.at("bytes_per_second")),
            .cpu_bytes_per_second = non_negative_or_throw(in.at("cpu_bytes_per_second")),
            .efficiency = non_negative_or_throw(in.at("efficiency")),
            .above_budget = in.at("above_budget").get<bool>(),
            .throttling = sweep_counters_from(in.at("throttling"))};
}

ThreadCountSummary thread_summary_from(const json& in) {
    ThreadCountSummary summary{
        .threads = integer_or_throw<size_t>(in.at("threads")),
        .above_budget = in.at("above_budget").get<bool>(),
        .median_efficiency = non_negative_or_throw(in.at("median_efficiency")),
        .throttling = sweep_counters_from(in.at("throttling"))};
    if (!in.at("wall_growth").is_null()) summary.wall_growth = number_or_throw(in["wall_growth"]);
    return summary;
}

}  // namespace

std::optional<host::ThrottlingCounters> added_counters(
    const std::optional<host::ThrottlingCounters>& total,
    const std::optional<host::ThrottlingCounters>& more) {
    if (!total || !more) return std::nullopt;
    return host::ThrottlingCounters{total->periods + more->periods,
                                    total->throttled_periods + more->throttled_periods,
                                    total->throttled_seconds + more->throttled_seconds};
}

std::string growth_text(double growth) {
    const std::string percent = format_percent(growth);
    if (percent == "-0%") return "+0%";
    return percent.front() == '-' ? percent : "+" + percent;
}

std::vector<size_t> sweep_thread_counts(uint32_t visible_cpus) {
    const size_t most = std::clamp<size_t>(visible_cpus, 1, kMaxCipherThreads);
    std::vector<size_t> counts;
    for (size_t count = 1; count <= most; count *= 2)
        counts.push_back(count);
    if (counts.back() != most) counts.push_back(most);
    return counts;
}

ThreadCounts thread_counts_of(const json& threads, uint32_t workers, uint32_t visible_cpus) {
    if (threads.is_string() && threads.get<std::string>() == "sweep")
        return {sweep_thread_counts(visible_cpus), true};
    if (threads.is_string()) return {{std::max<size_t>(1, workers)}, false};  // "auto"
    if (!threads.is_array()) return {{threads.get<size_t>()}, false};
    std::vector<size_t> counts = threads.get<std::vector<size_t>>();
    std::sort(counts.begin(), counts.end());
    return {counts, true};
}

Status check_sweep_size(const SweepSize& size) {
    const size_t cells = size.ciphers * size.block_sizes * size.thread_counts;
    const std::string shape = std::to_string(size.ciphers) + " cipher(s) x " +
                              std::to_string(size.block_sizes) + " block size(s) x " +
                              std::to_string(size.thread_counts) + " thread counts";
    if (cells > kMaxSweepCells) {
        return make_error(ErrorCode::invalid_argument,
                          "a thread sweep of " + shape + " is " + std::to_string(cells) +
                              " cells; at most " + std::to_string(kMaxSweepCells) +
                              " are allowed: give fewer ciphers, block sizes or thread counts");
    }
    const double seconds = static_cast<double>(cells * size.repetitions) * size.seconds;
    if (seconds > kMaxSweepSeconds) {
        return make_error(ErrorCode::invalid_argument,
                          "a thread sweep of " + shape + " x " + std::to_string(size.repetitions) +
                              " repetition(s) x " + cores_text(size.seconds) + " s measures " +
                              cores_text(seconds) + " s; at most " + cores_text(kMaxSweepSeconds) +
                              " s are allowed: give fewer cells, repetitions or seconds");
    }
    return Ok{};
}

ThreadSweep analyse_thread_sweep(const std::vector<SweepCellFigures>& cells,
                                 const std::vector<size_t>& thread_counts,
                                 const host::CpuBudget& budget) {
    ThreadSweep sweep;
    sweep.thread_counts = thread_counts;
    sweep.budget_cores = budget.cores;
    sweep.budget_source = budget.source;
    if (thread_counts.empty()) return sweep;
    sweep.scaling = scaling_of(cells, thread_counts, budget.cores);
    for (size_t at = 0; at < thread_counts.size(); ++at) {
        ThreadCountSummary summary = summary_at(sweep.scaling, thread_counts, at, budget.cores);
        if (at > 0 && !summary.wall_growth) break;  // not measured: the run was stopped
        const double linear_gain = at == 0 ? 0
                                           : static_cast<double>(thread_counts[at]) /
                                                     static_cast<double>(thread_counts[at - 1]) -
                                                 1;
        if (summary.wall_growth && *summary.wall_growth < kLinearGainShare * linear_gain &&
            !sweep.stops_growing_above) {
            sweep.stops_growing_above = thread_counts[at - 1];
        }
        sweep.by_threads.push_back(summary);
    }
    sweep.explanation = sweep_explanation(sweep);
    return sweep;
}

void to_json(json& out, const ThreadSweep& sweep) {
    json scaling = json::array();
    for (const auto& cell : sweep.scaling) {
        json steps = json::array();
        for (const auto& step : cell.steps) {
            steps.push_back({{"threads", step.threads},
                             {"bytes_per_second", step.bytes_per_second},
                             {"cpu_bytes_per_second", step.cpu_bytes_per_second},
                             {"efficiency", step.efficiency},
                             {"above_budget", step.above_budget},
                             {"throttling", sweep_counters_json(step.throttling)}});
        }
        scaling.push_back(
            {{"cipher", cell.cipher}, {"block_bytes", cell.block_bytes}, {"steps", steps}});
    }
    json by_threads = json::array();
    for (const auto& summary : sweep.by_threads) {
        by_threads.push_back({{"threads", summary.threads},
                              {"above_budget", summary.above_budget},
                              {"wall_growth", optional_number(summary.wall_growth)},
                              {"median_efficiency", summary.median_efficiency},
                              {"throttling", sweep_counters_json(summary.throttling)}});
    }
    out = {{"thread_counts", sweep.thread_counts},
           {"budget_cores", sweep.budget_cores},
           {"budget_source", sweep.budget_source},
           {"scaling", std::move(scaling)},
           {"by_threads", std::move(by_threads)},
           {"stops_growing_above",
            sweep.stops_growing_above ? json(*sweep.stops_growing_above) : json(nullptr)},
           {"explanation", sweep.explanation}};
}

void from_json(const json& in, ThreadSweep& sweep) {
    sweep = ThreadSweep{};
    for (const auto& count : array_or_throw(in.at("thread_counts")))
        sweep.thread_counts.push_back(integer_or_throw<size_t>(count));
    sweep.budget_cores = non_negative_or_throw(in.at("budget_cores"));
    sweep.budget_source = in.at("budget_source").get<std::string>();
    for (const auto& cell : array_or_throw(in.at("scaling"))) {
        CellScaling scaling{cell.at("cipher").get<std::string>(),
                            integer_or_throw<size_t>(cell.at("block_bytes")),
                            {}};
        for (const auto& step : array_or_throw(cell.at("steps")))
            scaling.steps.push_back(scaling_step_from(step));
        sweep.scaling.push_back(std::move(scaling));
    }
    for (const auto& summary : array_or_throw(in.at("by_threads")))
        sweep.by_threads.push_back(thread_summary_from(summary));
    if (!in.at("stops_growing_above").is_null())
        sweep.stops_growing_above = integer_or_throw<size_t>(in["stops_growing_above"]);
    sweep.explanation = in.at("explanation").get<std::string>();
}

}  // namespace hostprobe::probes
