#include "probes/cipher/cipher_probe.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "core/stats.hpp"
#include "core/strings.hpp"
#include "host/cgroup.hpp"
#include "host/proc_stat.hpp"
#include "metrics/family_builder.hpp"
#include "probes/cipher/cipher_catalog.hpp"
#include "probes/cipher/cipher_measurement.hpp"
#include "probes/cipher/speed_report.hpp"
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
    size_t threads = 1;
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
        .threads = context.count_or_workers(params["threads"]),
        // The param table accepts only the three names.
        .mode = cipher_mode_named(params["mode"].get<std::string>()).value_or(CipherMode::stream),
        .decrypt = params["decrypt"].get<bool>(),
        .sustained = sustained_seconds(params) > 0};
}

// Every repetition of every cell, by cipher and block size; `partial` when the run was stopped.
struct CipherTables {
    std::map<std::pair<std::string, size_t>, std::vector<Measurement>> cells;
    bool partial = false;
};

// What the run's series is told: which cell is measured, and the bytes done so far.
struct SeriesFeed {
    SeriesSampler& sampler;
    std::atomic<uint64_t>& bytes_done;
};

Result<CipherTables> measure_tables(const CipherPlan& plan, const runs::ProbeContext& context,
                                    const SeriesFeed& feed) {
    // Whole tables are repeated (as the seeds ran openssl speed three times), so that drift in
    // the machine's speed spreads over every cell rather than landing on one.
    CipherTables tables;
    const size_t total = plan.ciphers.size() * plan.sizes.size() * plan.repetitions;
    size_t done = 0;
    for (size_t repetition = 0; repetition < plan.repetitions; ++repetition) {
        for (const auto& cipher : plan.ciphers) {
            for (size_t size : plan.sizes) {
                if (context.stop.stop_requested()) {
                    tables.partial = true;
                    return tables;
                }
                const MeasurementSpec spec{cipher,    size,         plan.threads,    plan.seconds,
                                           plan.mode, plan.decrypt, &feed.bytes_done};
                feed.sampler.set_phase(cipher + "/" + std::to_string(size));
                auto measured = measure_cipher(spec, context.stop, [&](double within) {
                    context.report_progress((static_cast<double>(done) + within) /
                                            static_cast<double>(total));
                });
                if (!measured) return measured.error();
                if (!measured->complete) {
                    tables.partial = true;
                    return tables;
                }
                tables.cells[{cipher, size}].push_back(*measured);
                context.report_progress(static_cast<double>(++done) / static_cast<double>(total));
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

// The cells in the order asked for, cipher-major; those never measured are left out.
std::vector<CipherCell> cells_in_order(const CipherPlan& plan, const CipherTables& tables) {
    std::vector<CipherCell> cells;
    for (const auto& cipher : plan.ciphers) {
        for (size_t size : plan.sizes) {
            auto it = tables.cells.find({cipher, size});
            if (it != tables.cells.end()) cells.push_back(combine_repetitions(it->second));
        }
    }
    return cells;
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

std::optional<host::ThrottlingCounters> throttling_now(const runs::ProbeContext& context) {
    const auto& source = context.host.cgroup.throttling_source;
    if (!source) return std::nullopt;
    auto counters = host::read_throttling(context.root, *source);
    if (!counters) return std::nullopt;
    return *counters;
}

std::optional<double> steal_now(const runs::ProbeContext& context) {
    auto steal = host::read_steal_seconds(context.root);
    if (!steal) return std::nullopt;
    return *steal;
}

std::optional<host::ThrottlingCounters> throttling_change(
    const std::optional<host::ThrottlingCounters>& before,
    const std::optional<host::ThrottlingCounters>& after) {
    if (!before || !after) return std::nullopt;
    return host::ThrottlingCounters{after->periods - before->periods,
                                    after->throttled_periods - before->throttled_periods,
                                    after->throttled_seconds - before->throttled_seconds};
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
                    .type = ParamType::auto_or_integer,
                    .default_value = "auto",
                    .description =
                        "threads measuring at once, like openssl speed -multi; auto is the CPU "
                        "budget's workers",
                    .min = 1,
                    .max = 256},
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
    return static_cast<double>(params["ciphers"].size() * params["block_sizes"].size() *
                               params["repetitions"].get<size_t>()) *
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
    result.threads = plan.threads;
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
    evidence.threads = plan.threads;
    evidence.visible_cpus = context.host.cpu_budget.visible_cpus;
    const ThrottleVerdict verdict = judge_throttling(evidence);

    result.wall_to_cpu_ratio = verdict.wall_to_cpu;
    result.throttled = verdict.throttled;
    result.explanation = verdict.explanation;
    if (const std::string told = describe_series(series, "throughput"); !told.empty())
        result.explanation += " " + told;
    result.series_change = find_series_change(series);
    if (plan.sustained) result.sustained = sustained_throughput(series);
    result.series = std::move(series);
    result.openssl_version = OpenSSL_version(OPENSSL_VERSION);
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
    metrics::append(out, metrics::gauge("hostprobe_cipher_last_run_timestamp_seconds",
                                        "When the last completed cipher run finished (Unix time).")
                             .add(finished_unix_seconds));
    return out;
}

}  // namespace hostprobe::probes
