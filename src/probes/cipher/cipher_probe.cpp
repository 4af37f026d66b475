#include "probes/cipher/cipher_probe.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/json_reads.hpp"
#include "core/strings.hpp"
#include "host/cgroup.hpp"
#include "host/proc_stat.hpp"
#include "metrics/family_builder.hpp"
#include "probes/cipher/cipher_catalog.hpp"
#include "probes/cipher/cipher_measurement.hpp"
#include "probes/cipher/speed_report.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using runs::ParamSpec;
using runs::ParamType;

std::string percent(double fraction) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", fraction * 100);
    return buffer;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

json measurement_json(const Measurement& m) {
    return {{"cipher", m.cipher},
            {"block_bytes", m.block_bytes},
            {"threads", m.threads},
            {"seconds", m.seconds},
            {"ops", m.ops},
            {"bytes", m.bytes},
            {"bytes_per_second", m.bytes_per_second},
            {"cpu_seconds", m.cpu_seconds},
            {"cpu_bytes_per_second", m.cpu_bytes_per_second}};
}

json spread(const std::vector<Measurement>& runs, double Measurement::*field) {
    std::vector<double> values;
    for (const auto& run : runs)
        values.push_back(run.*field);
    return {{"min", *std::min_element(values.begin(), values.end())},
            {"median", median(values)},
            {"max", *std::max_element(values.begin(), values.end())}};
}

// The repetition whose wall-clock figure is the median, with min/median/max of both clocks.
json combine_repetitions(const std::vector<Measurement>& repetitions) {
    std::vector<Measurement> sorted = repetitions;
    std::sort(sorted.begin(), sorted.end(), [](const Measurement& a, const Measurement& b) {
        return a.bytes_per_second < b.bytes_per_second;
    });
    json combined = measurement_json(sorted[(sorted.size() - 1) / 2]);
    combined["bytes_per_second"] = spread(repetitions, &Measurement::bytes_per_second)["median"];
    combined["cpu_bytes_per_second"] =
        spread(repetitions, &Measurement::cpu_bytes_per_second)["median"];
    if (repetitions.size() > 1) {
        combined["repetitions"] = {
            {"count", repetitions.size()},
            {"bytes_per_second", spread(repetitions, &Measurement::bytes_per_second)},
            {"cpu_bytes_per_second", spread(repetitions, &Measurement::cpu_bytes_per_second)}};
    }
    return combined;
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
      }) {}

size_t cipher_threads(const json& threads_param, uint32_t budget_workers) {
    if (threads_param.is_string()) return std::max<uint32_t>(1, budget_workers);
    return threads_param.get<size_t>();
}

Status CipherProbe::check(const json& params) const {
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
    return static_cast<double>(params["ciphers"].size() * params["block_sizes"].size() *
                               params["repetitions"].get<size_t>()) *
           params["seconds"].get<double>();
}

ThrottleVerdict judge_throttling(const ThrottleEvidence& evidence) {
    ThrottleVerdict verdict;
    verdict.wall_to_cpu = evidence.wall_to_cpu;
    verdict.throttled = evidence.wall_to_cpu < 0.9;
    const std::string share =
        "Wall-clock throughput is " + percent(evidence.wall_to_cpu) + " of the CPU-time figure";
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

Result<runs::ProbeOutcome> CipherProbe::run(const runs::ProbeContext& context,
                                            const json& params) const {
    const size_t threads = cipher_threads(params["threads"], context.host.cpu_budget.workers);
    const auto ciphers = params["ciphers"].get<std::vector<std::string>>();
    const auto sizes = params["block_sizes"].get<std::vector<size_t>>();
    const auto repetitions = params["repetitions"].get<size_t>();
    const double seconds = params["seconds"].get<double>();
    const CipherMode mode = params["mode"] == "aead-record" ? CipherMode::aead_record
                            : params["mode"] == "message"   ? CipherMode::message
                                                            : CipherMode::stream;
    const bool decrypt = params["decrypt"].get<bool>();

    const auto throttling_before = throttling_now(context);
    const auto steal_before = steal_now(context);
    const auto started = std::chrono::steady_clock::now();

    // Whole tables are repeated (as the seeds ran openssl speed three times), so that drift in
    // the machine's speed spreads over every cell rather than landing on one.
    std::map<std::pair<std::string, size_t>, std::vector<Measurement>> cells;
    const size_t total = ciphers.size() * sizes.size() * repetitions;
    size_t done = 0;
    bool cut_short = false;
    for (size_t repetition = 0; repetition < repetitions && !cut_short; ++repetition) {
        for (const auto& cipher : ciphers) {
            for (size_t size : sizes) {
                if (context.stop.stop_requested()) {
                    cut_short = true;
                    break;
                }
                const MeasurementSpec spec{cipher, size, threads, seconds, mode, decrypt};
                auto measured = measure_cipher(spec, context.stop, [&](double within) {
                    context.report_progress((static_cast<double>(done) + within) /
                                            static_cast<double>(total));
                });
                if (!measured) return measured.error();
                if (!measured->complete) {
                    cut_short = true;
                    break;
                }
                cells[{cipher, size}].push_back(*measured);
                context.report_progress(static_cast<double>(++done) / static_cast<double>(total));
            }
            if (cut_short) break;
        }
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    json measurements = json::array();
    std::vector<double> ratios;
    for (const auto& cipher : ciphers) {
        for (size_t size : sizes) {
            auto it = cells.find({cipher, size});
            if (it == cells.end()) continue;
            json combined = combine_repetitions(it->second);
            if (combined["cpu_bytes_per_second"].get<double>() > 0) {
                ratios.push_back(combined["bytes_per_second"].get<double>() /
                                 combined["cpu_bytes_per_second"].get<double>());
            }
            measurements.push_back(std::move(combined));
        }
    }

    ThrottleEvidence evidence;
    evidence.wall_to_cpu = ratios.empty() ? 1 : median(ratios);
    if (context.host.cgroup.cpu_quota)
        evidence.quota_cores = context.host.cgroup.cpu_quota->cores();
    const auto throttling_after = throttling_now(context);
    json throttling = nullptr;
    if (throttling_before && throttling_after) {
        evidence.periods = throttling_after->periods - throttling_before->periods;
        evidence.throttled_periods =
            throttling_after->throttled_periods - throttling_before->throttled_periods;
        evidence.throttled_seconds =
            throttling_after->throttled_seconds - throttling_before->throttled_seconds;
        throttling = {{"periods", *evidence.periods},
                      {"throttled_periods", *evidence.throttled_periods},
                      {"throttled_seconds", *evidence.throttled_seconds}};
    }
    const auto steal_after = steal_now(context);
    if (steal_before && steal_after) evidence.steal_seconds = *steal_after - *steal_before;
    evidence.wall_seconds = wall;
    evidence.threads = threads;
    evidence.visible_cpus = context.host.cpu_budget.visible_cpus;
    const ThrottleVerdict verdict = judge_throttling(evidence);

    const auto& budget = context.host.cpu_budget;
    json result = {
        {"measurements", std::move(measurements)},
        {"threads", threads},
        {"seconds_per_measurement", seconds},
        {"mode", params["mode"]},
        {"decrypt", decrypt},
        {"throttling", throttling},
        {"steal_seconds", evidence.steal_seconds ? json(*evidence.steal_seconds) : json(nullptr)},
        {"wall_to_cpu_ratio", verdict.wall_to_cpu},
        {"throttled", verdict.throttled},
        {"explanation", verdict.explanation},
        {"openssl_version", OpenSSL_version(OPENSSL_VERSION)},
        {"cpu_budget",
         {{"cores", budget.cores},
          {"workers", budget.workers},
          {"visible_cpus", budget.visible_cpus},
          {"source", budget.source}}},
        {"partial", cut_short}};
    std::string text = speed_report(result);
    return runs::ProbeOutcome{std::move(result), std::move(text), cut_short};
}

Result<std::vector<prometheus::MetricFamily>> CipherProbe::result_metrics(
    const json& result, double finished_unix_seconds) const {
    std::vector<prometheus::MetricFamily> out;
    metrics::FamilyBuilder throughput =
        metrics::gauge("hostprobe_cipher_throughput_bytes_per_second",
                       "Cipher throughput of the last completed cipher run; clock=wall is what the "
                       "task gets, clock=cpu what "
                       "openssl speed prints without -elapsed.");
    // at() and integer_or_throw: a result restored from the journal may have any shape.
    for (const auto& m : result.at("measurements")) {
        const metrics::Labels labels = {
            {"cipher", m.at("cipher").get<std::string>()},
            {"block_bytes", std::to_string(integer_or_throw<size_t>(m.at("block_bytes")))},
            {"threads", std::to_string(integer_or_throw<size_t>(m.at("threads")))}};
        metrics::Labels wall = labels;
        wall.emplace_back("clock", "wall");
        throughput.add(m.at("bytes_per_second").get<double>(), wall);
        metrics::Labels cpu = labels;
        cpu.emplace_back("clock", "cpu");
        throughput.add(m.at("cpu_bytes_per_second").get<double>(), cpu);
    }
    metrics::append(out, std::move(throughput));
    metrics::append(out, metrics::gauge("hostprobe_cipher_last_run_timestamp_seconds",
                                        "When the last completed cipher run finished (Unix time).")
                             .add(finished_unix_seconds));
    return out;
}

}  // namespace hostprobe::probes
