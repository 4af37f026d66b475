#include "probes/cipher/cipher_probe.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <tuple>

#include "core/stats.hpp"
#include "core/strings.hpp"
#include "host/cgroup.hpp"
#include "host/proc_stat.hpp"
#include "metrics/family_builder.hpp"
#include "probes/cipher/aes_hardware.hpp"
#include "probes/cipher/cipher_catalog.hpp"
#include "probes/cipher/cipher_measurement.hpp"
#include "probes/cipher/speed_report.hpp"
#include "probes/cipher/thread_sweep.hpp"
#include "probes/common/series_analysis.hpp"
#include "probes/common/series_sampler.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using runs::ParamSpec;
using runs::ParamType;

// What one run measures, read once from its normalized params.
struct CipherPlan {
    std::vector<std::string> ciphers;
    std::vector<size_t> sizes;
    size_t repetitions = 1;
    double seconds = 0;
    ThreadCounts threads;  // one count, or a sweep's
    CipherMode mode = CipherMode::stream;
    bool decrypt = false;
    bool sustained = false;
};

// A sustained run measures its one cell for up to 30 minutes (`seconds` stays at most 60 s).
constexpr double kMaxSustainedSeconds = 1800;
constexpr double kSustainedWindowSeconds = 60;

double sustained_seconds(const json& params) {
    return params["sustained_seconds"].get<double>();
}

CipherPlan plan_from(const runs::ProbeContext& context, const json& params) {
    return {
        .ciphers = params["ciphers"].get<std::vector<std::string>>(),
        .sizes = params["block_sizes"].get<std::vector<size_t>>(),
        .repetitions = params["repetitions"].get<size_t>(),
        .seconds = sustained_seconds(params) > 0 ? sustained_seconds(params)
                                                 : params["seconds"].get<double>(),
        .threads = thread_counts_of(params["threads"], context.host.cpu_budget.workers,
                                    context.host.cpu_budget.visible_cpus),
        // The param table accepts only the three names.
        .mode = cipher_mode_named(params["mode"].get<std::string>()).value_or(CipherMode::stream),
        .decrypt = params["decrypt"].get<bool>(),
        .sustained = sustained_seconds(params) > 0};
}

// A cell of the table at one thread count.
using CellKey = std::tuple<std::string, size_t, size_t>;  // cipher, block size, threads

// Every repetition of every cell, by cipher, block size and thread count, with the change in the
// CFS counters while each cell was measured (summed over repetitions); `partial` when the run
// was stopped.
struct CipherTables {
    std::map<CellKey, std::vector<Measurement>> cells;
    std::map<CellKey, std::optional<host::ThrottlingCounters>> throttling;
    bool partial = false;
};

std::optional<host::ThrottlingCounters> throttling_now(const runs::ProbeContext& context) {
    const auto& source = context.host.cgroup.throttling_source;
    if (!source) return std::nullopt;
    auto counters = host::read_throttling(context.root, *source);
    if (!counters) return std::nullopt;
    return *counters;
}

std::optional<host::ThrottlingCounters> throttling_change(
    const std::optional<host::ThrottlingCounters>& before,
    const std::optional<host::ThrottlingCounters>& after) {
    if (!before || !after) return std::nullopt;
    return host::ThrottlingCounters{after->periods - before->periods,
                                    after->throttled_periods - before->throttled_periods,
                                    after->throttled_seconds - before->throttled_seconds};
}

// What the run's series is told: which cell is measured, and the bytes done so far.
struct SeriesFeed {
    SeriesSampler& sampler;
    std::atomic<uint64_t>& bytes_done;
};

// Where a run is: which cell of how many, for progress.
struct TableProgress {
    size_t done = 0;
    size_t total = 1;
};

// One cell at one thread count; false when the run was stopped before or during it.
Result<bool> measure_cell(const CipherPlan& plan, const runs::ProbeContext& context,
                          const SeriesFeed& feed, const CellKey& key, TableProgress& progress,
                          CipherTables& tables) {
    const auto& [cipher, size, threads] = key;
    if (context.stop.stop_requested()) return false;
    const MeasurementSpec spec{cipher,    size,         threads,         plan.seconds,
                               plan.mode, plan.decrypt, &feed.bytes_done};
    feed.sampler.set_phase(cipher + "/" + std::to_string(size) +
                           (plan.threads.sweep ? "/" + std::to_string(threads) + "t" : ""));
    const auto throttling_before = throttling_now(context);
    auto measured = measure_cipher(spec, context.stop, [&](double within) {
        context.report_progress((static_cast<double>(progress.done) + within) /
                                static_cast<double>(progress.total));
    });
    if (!measured) return measured.error();
    if (!measured->complete) return false;
    tables.cells[key].push_back(*measured);
    if (plan.threads.sweep) {
        const auto change = throttling_change(throttling_before, throttling_now(context));
        if (auto [at, first] = tables.throttling.try_emplace(key, change); !first)
            at->second = added_counters(at->second, change);
    }
    context.report_progress(static_cast<double>(++progress.done) /
                            static_cast<double>(progress.total));
    return true;
}

Result<CipherTables> measure_tables(const CipherPlan& plan, const runs::ProbeContext& context,
                                    const SeriesFeed& feed) {
    // Whole tables are repeated (as the seeds ran openssl speed three times), so that drift in
    // the machine's speed spreads over every cell rather than landing on one. A sweep measures
    // the whole table at one count before the next, as seed 002 ran openssl speed -multi N.
    CipherTables tables;
    TableProgress progress{
        0, plan.ciphers.size() * plan.sizes.size() * plan.repetitions * plan.threads.counts.size()};
    for (size_t repetition = 0; repetition < plan.repetitions; ++repetition) {
        for (size_t threads : plan.threads.counts) {
            for (const auto& cipher : plan.ciphers) {
                for (size_t size : plan.sizes) {
                    auto measured = measure_cell(plan, context, feed, {cipher, size, threads},
                                                 progress, tables);
                    if (!measured) return measured.error();
                    if (!*measured) {
                        tables.partial = true;
                        return tables;
                    }
                }
            }
        }
    }
    return tables;
}

CipherCell cell_of(const Measurement& measurement) {
    return {.cipher = measurement.cipher,
            .block_bytes = measurement.block_bytes,
            .threads = measurement.threads,
            .seconds = measurement.seconds,
            .ops = measurement.ops,
            .bytes = measurement.bytes,
            .bytes_per_second = measurement.bytes_per_second,
            .cpu_seconds = measurement.cpu_seconds,
            .cpu_bytes_per_second = measurement.cpu_bytes_per_second};
}

core::Spread spread_of(const std::vector<Measurement>& repetitions, double Measurement::*rate) {
    std::vector<double> values;
    for (const auto& repetition : repetitions)
        values.push_back(repetition.*rate);
    return *core::spread(values);  // a cell exists only once it was measured
}

// The repetition whose wall-clock figure is the median, with the median of both clocks, and
// their min/median/max when there was more than one.
CipherCell combine_repetitions(const std::vector<Measurement>& repetitions) {
    std::vector<Measurement> sorted = repetitions;
    std::sort(sorted.begin(), sorted.end(), [](const Measurement& a, const Measurement& b) {
        return a.bytes_per_second < b.bytes_per_second;
    });
    CipherCell cell = cell_of(sorted[(sorted.size() - 1) / 2]);
    const core::Spread wall = spread_of(repetitions, &Measurement::bytes_per_second);
    const core::Spread cpu = spread_of(repetitions, &Measurement::cpu_bytes_per_second);
    cell.bytes_per_second = wall.median;
    cell.cpu_bytes_per_second = cpu.median;
    if (repetitions.size() > 1) cell.repetitions = CipherRepetitions{repetitions.size(), wall, cpu};
    return cell;
}

// The cells in the order asked for, cipher-major, then by thread count; those never measured
// are left out.
std::vector<CipherCell> cells_in_order(const CipherPlan& plan, const CipherTables& tables) {
    std::vector<CipherCell> cells;
    for (const auto& cipher : plan.ciphers) {
        for (size_t size : plan.sizes) {
            for (size_t threads : plan.threads.counts) {
                auto it = tables.cells.find({cipher, size, threads});
                if (it != tables.cells.end()) cells.push_back(combine_repetitions(it->second));
            }
        }
    }
    return cells;
}

// The sweep's figures: each cell's combined rates with its CFS counters' change.
ThreadSweep thread_sweep_of(const CipherPlan& plan, const CipherTables& tables,
                            const std::vector<CipherCell>& cells, const host::CpuBudget& budget) {
    std::vector<SweepCellFigures> figures;
    for (const auto& cell : cells) {
        const auto throttling =
            tables.throttling.find({cell.cipher, cell.block_bytes, cell.threads});
        figures.push_back(
            {cell.cipher, cell.block_bytes, cell.threads, cell.bytes_per_second,
             cell.cpu_bytes_per_second,
             throttling == tables.throttling.end() ? std::nullopt : throttling->second});
    }
    return analyse_thread_sweep(figures, plan.threads.counts, budget);
}

// The size a `threads` list or "sweep" makes the run; "sweep" is resolved with the CPUs this
// process may use now, as a run started now would (the run checks its plan again when it starts).
SweepSize sweep_size_of(const json& params) {
    const uint32_t visible = host::affinity_cpu_count().value_or(kMaxCipherThreads);
    return {.ciphers = params["ciphers"].size(),
            .block_sizes = params["block_sizes"].size(),
            .repetitions = params["repetitions"].get<size_t>(),
            .thread_counts = thread_counts_of(params["threads"], 1, visible).counts.size(),
            .seconds = params["seconds"].get<double>()};
}

bool is_sweep(const json& params) {
    return params["threads"].is_array() || params["threads"] == "sweep";
}

double median_wall_to_cpu(const std::vector<CipherCell>& cells) {
    std::vector<double> ratios;
    for (const auto& cell : cells) {
        if (cell.cpu_bytes_per_second > 0)
            ratios.push_back(cell.bytes_per_second / cell.cpu_bytes_per_second);
    }
    return core::median(ratios).value_or(1);
}

// The first and the last window of a sustained run's series, each a minute (or half the run).
std::optional<SustainedThroughput> sustained_throughput(const std::vector<SeriesSlice>& series) {
    if (series.empty()) return std::nullopt;
    const double total = series.back().start_seconds + series.back().seconds;
    const double window = std::min(kSustainedWindowSeconds, total / 2);
    double first_bytes = 0, first_seconds = 0, last_bytes = 0, last_seconds = 0;
    for (const auto& slice : series) {
        if (!slice.work) return std::nullopt;
        if (slice.start_seconds + slice.seconds <= window + 1e-9) {
            first_bytes += *slice.work;
            first_seconds += slice.seconds;
        }
        if (slice.start_seconds >= total - window - 1e-9) {
            last_bytes += *slice.work;
            last_seconds += slice.seconds;
        }
    }
    if (first_seconds <= 0 || last_seconds <= 0) return std::nullopt;
    return SustainedThroughput{window, first_bytes / first_seconds, last_bytes / last_seconds};
}

std::optional<double> steal_now(const runs::ProbeContext& context) {
    auto steal = host::read_steal_seconds(context.root);
    if (!steal) return std::nullopt;
    return *steal;
}

}  // namespace

CipherProbe::CipherProbe()
    : params_({
          ParamSpec{.name = "ciphers",
                    .type = ParamType::choice_list,
                    .default_value = json{"aes-128-gcm", "aes-128-ctr", "chacha20"},
                    .description = "ciphers to measure, by openssl speed -evp's names",
                    .choices = cipher_names(),
                    .max_items = 8},
          ParamSpec{.name = "block_sizes",
                    .type = ParamType::integer_list,
                    .default_value = json{16, 64, 256, 1024, 8192, 16384},
                    .description = "bytes per operation (openssl speed's columns)",
                    .min = 1,
                    .max = 1048576,
                    .max_items = 16,
                    .unit = "bytes"},
          ParamSpec{.name = "seconds",
                    .type = ParamType::number,
                    .default_value = 3,
                    .description = "how long each cipher and block size is measured",
                    .min = 0.1,
                    .max = 60,
                    .unit = "s"},
          ParamSpec{.name = "threads",
                    .type = ParamType::auto_sweep_or_counts,
                    .default_value = "auto",
                    .description =
                        "threads measuring at once, like openssl speed -multi; auto is the CPU "
                        "budget's workers; a list (1,2,4,8) or sweep (1, 2, 4 ... up to the "
                        "visible CPUs, and their count) measures the table at each count, "
                        "`seconds` per cell per count, and reports the scaling",
                    .min = 1,
                    .max = kMaxCipherThreads,
                    .max_items = 16},
          ParamSpec{.name = "mode",
                    .type = ParamType::choice,
                    .default_value = "stream",
                    .description =
                        "stream: one context fed block after block (openssl speed -evp's loop, "
                        "as in OpenSSL 1.x); message: each block a whole AEAD message with key and "
                        "IV set again (what OpenSSL 3.x speed -evp does for GCM); aead-record: a "
                        "fresh IV, 13 bytes of AAD, data and tag per block, as TLS records and "
                        "openssl speed -aead",
                    .choices = {"stream", "message", "aead-record"}},
          ParamSpec{
              .name = "repetitions",
              .type = ParamType::integer,
              .default_value = 1,
              .description = "repeat the whole table and report the median (with min and max)",
              .min = 1,
              .max = 10},
          ParamSpec{.name = "decrypt",
                    .type = ParamType::boolean,
                    .default_value = false,
                    .description = "measure decryption instead of encryption"},
          ParamSpec{.name = "sustained_seconds",
                    .type = ParamType::number,
                    .default_value = 0,
                    .description =
                        "0, or a sustained run: one cipher and one block size measured this long "
                        "instead of `seconds`, to see throughput change over time (CPU credits "
                        "running out on a burstable instance); reports the first and the last "
                        "minute and where it changed",
                    .min = 0,
                    .max = kMaxSustainedSeconds,
                    .unit = "s"},
      }) {}
Status CipherProbe::check(const json& params) const {
    if (sustained_seconds(params) > 0 &&
        (params["ciphers"].size() != 1 || params["block_sizes"].size() != 1 ||
         params["repetitions"].get<size_t>() != 1)) {
        return make_error(ErrorCode::invalid_argument,
                          "sustained_seconds measures one cipher and one block size once: give "
                          "one of each and repetitions 1");
    }
    if (is_sweep(params)) {
        if (sustained_seconds(params) > 0) {
            return make_error(ErrorCode::invalid_argument,
                              "sustained_seconds measures at one thread count: give threads a "
                              "number or \"auto\", not a list or \"sweep\"");
        }
        if (auto size = check_sweep_size(sweep_size_of(params)); !size) return size;
    }
    if (params["mode"] == "stream") return Ok{};
    for (const auto& cipher : params["ciphers"]) {
        if (!is_aead_cipher(cipher.get<std::string>())) {
            return make_error(
                ErrorCode::invalid_argument,
                "mode " + params["mode"].get<std::string>() +
                    " needs AEAD ciphers (aes-128-gcm, aes-256-gcm, chacha20-poly1305); '" +
                    cipher.get<std::string>() + "' is not one");
        }
    }
    return Ok{};
}

double CipherProbe::expected_seconds(const json& params) const {
    if (sustained_seconds(params) > 0) return sustained_seconds(params);
    const size_t thread_counts = is_sweep(params) ? sweep_size_of(params).thread_counts : 1;
    return static_cast<double>(params["ciphers"].size() * params["block_sizes"].size() *
                               params["repetitions"].get<size_t>() * thread_counts) *
           params["seconds"].get<double>();
}

ThrottleVerdict judge_throttling(const ThrottleEvidence& evidence) {
    ThrottleVerdict verdict;
    verdict.wall_to_cpu = evidence.wall_to_cpu;
    verdict.throttled = evidence.wall_to_cpu < 0.9;
    const std::string share = "Wall-clock throughput is " + format_percent(evidence.wall_to_cpu) +
                              " of the CPU-time figure";
    if (!verdict.throttled) {
        verdict.explanation =
            share + ": the two clocks agree within 10%, so nothing held the threads back.";
        return verdict;
    }
    const std::string reader =
        " `openssl speed` without -elapsed divides by CPU time and would show the higher figure; "
        "the wall-clock "
        "figure is what an application in this task gets.";
    if (evidence.throttled_periods && *evidence.throttled_periods > 0) {
        verdict.explanation =
            share + ": the cgroup CPU quota" +
            (evidence.quota_cores ? " (" + format_fixed(*evidence.quota_cores, 2) + " CPUs)"
                                  : std::string()) +
            " throttled the task in " + std::to_string(*evidence.throttled_periods) + " of " +
            std::to_string(evidence.periods.value_or(0)) + " scheduler periods (" +
            format_fixed(evidence.throttled_seconds.value_or(0), 2) + " s in all)." + reader;
    } else if (evidence.steal_seconds && evidence.wall_seconds > 0 &&
               *evidence.steal_seconds > 0.1 * evidence.wall_seconds) {
        verdict.explanation = share + ": the hypervisor stole " +
                              format_fixed(*evidence.steal_seconds, 2) +
                              " s of CPU time from this VM during the run." + reader;
    } else if (evidence.threads > evidence.visible_cpus) {
        verdict.explanation = share + ": " + std::to_string(evidence.threads) + " threads shared " +
                              std::to_string(evidence.visible_cpus) + " CPUs." + reader;
    } else {
        verdict.explanation =
            share +
            ": other work competed for the CPUs (no cgroup throttling or steal was "
            "recorded)." +
            reader;
    }
    return verdict;
}

Result<CipherResult> CipherProbe::measure(const runs::ProbeContext& context,
                                          const json& params) const {
    const CipherPlan plan = plan_from(context, params);
    if (plan.threads.sweep) {
        // "sweep" follows the CPUs visible now, which may be more than when the run was queued.
        if (auto size = check_sweep_size({plan.ciphers.size(), plan.sizes.size(), plan.repetitions,
                                          plan.threads.counts.size(), plan.seconds});
            !size)
            return size.error();
    }
    const auto throttling_before = throttling_now(context);
    const auto steal_before = steal_now(context);
    const auto started = std::chrono::steady_clock::now();
    const SeriesSources sources(context.root, context.host);
    std::atomic<uint64_t> bytes_done{0};
    SeriesSampler sampler(sources, &bytes_done);
    auto tables = measure_tables(plan, context, SeriesFeed{sampler, bytes_done});
    auto series = sampler.finish();
    if (!tables) return tables.error();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    CipherResult result;
    result.measurements = cells_in_order(plan, *tables);
    result.threads = plan.threads.counts.back();  // a sweep's largest
    result.seconds_per_measurement = plan.seconds;
    result.mode = plan.mode;
    result.decrypt = plan.decrypt;
    result.throttling = throttling_change(throttling_before, throttling_now(context));
    const auto steal_after = steal_now(context);
    if (steal_before && steal_after) result.steal_seconds = *steal_after - *steal_before;

    ThrottleEvidence evidence;
    evidence.wall_to_cpu = median_wall_to_cpu(result.measurements);
    if (context.host.cgroup.cpu_quota)
        evidence.quota_cores = context.host.cgroup.cpu_quota->cores();
    if (result.throttling) {
        evidence.periods = result.throttling->periods;
        evidence.throttled_periods = result.throttling->throttled_periods;
        evidence.throttled_seconds = result.throttling->throttled_seconds;
    }
    evidence.steal_seconds = result.steal_seconds;
    evidence.wall_seconds = wall;
    evidence.threads = plan.threads.counts.back();
    evidence.visible_cpus = context.host.cpu_budget.visible_cpus;
    const ThrottleVerdict verdict = judge_throttling(evidence);

    result.wall_to_cpu_ratio = verdict.wall_to_cpu;
    result.throttled = verdict.throttled;
    result.explanation = verdict.explanation;
    if (const std::string told = describe_series(series, "throughput"); !told.empty())
        result.explanation += " " + told;
    result.series_change = find_series_change(series);
    if (plan.sustained) result.sustained = sustained_throughput(series);
    if (plan.threads.sweep) {
        result.thread_sweep =
            thread_sweep_of(plan, *tables, result.measurements, context.host.cpu_budget);
        result.explanation += " " + result.thread_sweep->explanation;
    }
    result.series = std::move(series);
    result.openssl_version = OpenSSL_version(OPENSSL_VERSION);
    result.openssl_cpu = measured_openssl_cpu(context);
    if (const std::string note = aes_hardware_note(result); !note.empty())
        result.explanation += " " + note;
    result.cpu_budget = context.host.cpu_budget;
    result.partial = tables->partial;
    return result;
}

std::string CipherProbe::text_report(const CipherResult& result) const {
    return speed_report(result);
}

std::vector<prometheus::MetricFamily> CipherProbe::metrics(const CipherResult& result,
                                                           double finished_unix_seconds) const {
    std::vector<prometheus::MetricFamily> out;
    metrics::FamilyBuilder throughput =
        metrics::gauge("hostprobe_cipher_throughput_bytes_per_second",
                       "Cipher throughput of the last completed cipher run; clock=wall is what the "
                       "task gets, clock=cpu what "
                       "openssl speed prints without -elapsed.");
    for (const auto& cell : result.measurements) {
        const metrics::Labels labels = {{"cipher", cell.cipher},
                                        {"block_bytes", std::to_string(cell.block_bytes)},
                                        {"threads", std::to_string(cell.threads)}};
        metrics::Labels wall = labels;
        wall.emplace_back("clock", "wall");
        throughput.add(cell.bytes_per_second, wall);
        metrics::Labels cpu = labels;
        cpu.emplace_back("clock", "cpu");
        throughput.add(cell.cpu_bytes_per_second, cpu);
    }
    metrics::append(out, std::move(throughput));
    if (const auto& sweep = result.thread_sweep) {
        metrics::FamilyBuilder efficiency = metrics::gauge(
            "hostprobe_cipher_scaling_efficiency_ratio",
            "Thread sweep of the last completed cipher run: wall-clock throughput at `threads` "
            "over threads times the throughput at the sweep's smallest count (1 is linear).");
        for (const auto& cell : sweep->scaling) {
            for (const auto& step : cell.steps) {
                efficiency.add(step.efficiency, {{"cipher", cell.cipher},
                                                 {"block_bytes", std::to_string(cell.block_bytes)},
                                                 {"threads", std::to_string(step.threads)}});
            }
        }
        metrics::append(out, std::move(efficiency));
    }
    metrics::append(out, metrics::gauge("hostprobe_cipher_last_run_timestamp_seconds",
                                        "When the last completed cipher run finished (Unix time).")
                             .add(finished_unix_seconds));
    return out;
}

}  // namespace hostprobe::probes
