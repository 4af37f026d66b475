#include "probes/cipher/sweep_report.hpp"

#include <cstdio>

#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

std::string threads_header(size_t threads) {
    char header[32];
    std::snprintf(header, sizeof header, "%19s",
                  (std::to_string(threads) + (threads == 1 ? " thread" : " threads")).c_str());
    return header;
}

// openssl speed's figure (1000s of bytes per second) and a percentage after it.
std::string figure_with_share(double bytes_per_second, double share) {
    char cell[48];
    std::snprintf(cell, sizeof cell, " %12.2fk %4s", bytes_per_second / 1e3,
                  format_percent(share).c_str());
    return cell;
}

const ScalingStep* sweep_step_at(const CellScaling& cell, size_t threads) {
    for (const auto& step : cell.steps) {
        if (step.threads == threads) return &step;
    }
    return nullptr;
}

// One row per cipher and block size, one column per thread count; `cell_text` fills a column.
template <typename CellText>
std::string sweep_table(const ThreadSweep& sweep, CellText cell_text) {
    std::string out = "type           bytes";
    for (size_t threads : sweep.thread_counts)
        out += threads_header(threads);
    out += "\n";
    for (const auto& cell : sweep.scaling) {
        char name[64];
        std::snprintf(name, sizeof name, "%-13s %6zu", cell.cipher.c_str(), cell.block_bytes);
        out += name;
        for (size_t threads : sweep.thread_counts) {
            const ScalingStep* step = sweep_step_at(cell, threads);
            out += step == nullptr ? "                n/a" : cell_text(*step);
        }
        out += "\n";
    }
    return out;
}

std::string count_line(const ThreadCountSummary& summary, double budget_cores) {
    std::string line = "  " + std::to_string(summary.threads) +
                       (summary.threads == 1 ? " thread: " : " threads: ");
    if (summary.wall_growth) {
        line += growth_text(*summary.wall_growth) + " over the previous count, ";
    }
    line += "median efficiency " + format_percent(summary.median_efficiency) + ", " +
            (summary.above_budget ? "above" : "within") + " the CPU budget (" +
            format_fixed(budget_cores, 2) + " cores)";
    // No periods: no quota (or counters that do not move), nothing to say.
    if (const auto& counters = summary.throttling; counters && counters->periods > 0) {
        line += ", throttled in " + std::to_string(counters->throttled_periods) + " of " +
                std::to_string(counters->periods) + " periods (" +
                format_fixed(counters->throttled_seconds, 2) + " s)";
    }
    return line + "\n";
}

}  // namespace

std::string sweep_report(const ThreadSweep& sweep) {
    std::string out =
        "Thread sweep, wall clock (what `openssl speed -elapsed -multi N` prints, in 1000s of "
        "bytes per second; efficiency = rate at N / (N x rate at " +
        std::to_string(sweep.thread_counts.empty() ? 1 : sweep.thread_counts.front()) + ")):\n";
    out += sweep_table(sweep, [](const ScalingStep& step) {
        return figure_with_share(step.bytes_per_second, step.efficiency);
    });
    out +=
        "\nThread sweep, CPU time (what `openssl speed -multi N` prints; the percentage is the "
        "wall-clock figure's share of it):\n";
    out += sweep_table(sweep, [](const ScalingStep& step) {
        return figure_with_share(
            step.cpu_bytes_per_second,
            step.cpu_bytes_per_second > 0 ? step.bytes_per_second / step.cpu_bytes_per_second : 0);
    });
    out += "\nPer thread count, over every cell:\n";
    for (const auto& summary : sweep.by_threads)
        out += count_line(summary, sweep.budget_cores);
    return out;  // the sweep's explanation ends the result's, printed last
}

}  // namespace hostprobe::probes
