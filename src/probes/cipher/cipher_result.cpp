#include "probes/cipher/cipher_result.hpp"

#include <stdexcept>

#include "core/json_reads.hpp"
#include "core/result_reads.hpp"
#include "host/host_examples.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

using namespace result_reads;

json spread_json(const core::Spread& spread) {
    return {{"min", spread.min}, {"median", spread.median}, {"max", spread.max}};
}

core::Spread spread_from(const json& in) {
    return {number_or_throw(in.at("min")), number_or_throw(in.at("median")),
            number_or_throw(in.at("max"))};
}

json cell_json(const CipherCell& cell) {
    json out = {{"cipher", cell.cipher},
                {"block_bytes", cell.block_bytes},
                {"threads", cell.threads},
                {"seconds", cell.seconds},
                {"ops", cell.ops},
                {"bytes", cell.bytes},
                {"bytes_per_second", cell.bytes_per_second},
                {"cpu_seconds", cell.cpu_seconds},
                {"cpu_bytes_per_second", cell.cpu_bytes_per_second}};
    if (cell.repetitions) {
        out["repetitions"] = {
            {"count", cell.repetitions->count},
            {"bytes_per_second", spread_json(cell.repetitions->bytes_per_second)},
            {"cpu_bytes_per_second", spread_json(cell.repetitions->cpu_bytes_per_second)}};
    }
    return out;
}

CipherRepetitions repetitions_from(const json& in) {
    return {integer_or_throw<size_t>(in.at("count")), spread_from(in.at("bytes_per_second")),
            spread_from(in.at("cpu_bytes_per_second"))};
}

// What the metrics read is required; the rest is read when present.
CipherCell cell_from(const json& in) {
    CipherCell cell;
    cell.cipher = in.at("cipher").get<std::string>();
    cell.block_bytes = integer_or_throw<size_t>(in.at("block_bytes"));
    cell.threads = integer_or_throw<size_t>(in.at("threads"));
    cell.bytes_per_second = number_or_throw(in.at("bytes_per_second"));
    cell.cpu_bytes_per_second = number_or_throw(in.at("cpu_bytes_per_second"));
    read_if_present(in, "seconds", cell.seconds, as_number);
    read_if_present(in, "ops", cell.ops, as_count);
    read_if_present(in, "bytes", cell.bytes, as_count);
    read_if_present(in, "cpu_seconds", cell.cpu_seconds, as_number);
    read_if_present(in, "repetitions", cell.repetitions,
                    [](const json& value) { return repetitions_from(value); });
    return cell;
}

json throttling_json(const std::optional<host::ThrottlingCounters>& throttling) {
    if (!throttling) return nullptr;
    return {{"periods", throttling->periods},
            {"throttled_periods", throttling->throttled_periods},
            {"throttled_seconds", throttling->throttled_seconds}};
}

std::optional<host::ThrottlingCounters> throttling_from(const json& in) {
    if (in.is_null()) return std::nullopt;
    return host::ThrottlingCounters{integer_or_throw<uint64_t>(in.at("periods")),
                                    integer_or_throw<uint64_t>(in.at("throttled_periods")),
                                    number_or_throw(in.at("throttled_seconds"))};
}

CipherMode mode_from(const json& in) {
    const auto mode = cipher_mode_named(in.get<std::string>());
    if (!mode) throw std::invalid_argument("unknown mode '" + in.get<std::string>() + "'");
    return *mode;
}

}  // namespace

void to_json(json& out, const CipherResult& result) {
    json measurements = json::array();
    for (const auto& cell : result.measurements)
        measurements.push_back(cell_json(cell));
    out = {{"measurements", std::move(measurements)},
           {"threads", result.threads},
           {"seconds_per_measurement", result.seconds_per_measurement},
           {"mode", cipher_mode_name(result.mode)},
           {"decrypt", result.decrypt},
           {"throttling", throttling_json(result.throttling)},
           {"steal_seconds", result.steal_seconds ? json(*result.steal_seconds) : json(nullptr)},
           {"wall_to_cpu_ratio", result.wall_to_cpu_ratio},
           {"throttled", result.throttled},
           {"explanation", result.explanation},
           {"openssl_version", result.openssl_version},
           {"cpu_budget", result.cpu_budget},
           {"partial", result.partial}};
    // Only what a run recorded: results written before series existed keep their exact shape.
    if (!result.series.empty()) out["series"] = series_json(result.series, "bytes");
    if (result.series_change) out["series_change"] = series_change_json(*result.series_change);
    if (const auto& sustained = result.sustained) {
        out["sustained"] = {{"window_seconds", sustained->window_seconds},
                            {"first_bytes_per_second", sustained->first_bytes_per_second},
                            {"last_bytes_per_second", sustained->last_bytes_per_second}};
    }
    if (result.thread_sweep) out["thread_sweep"] = *result.thread_sweep;
    if (result.openssl_cpu) out["openssl_cpu"] = *result.openssl_cpu;
}

void from_json(const json& in, CipherResult& result) {
    const json& measurements = in.at("measurements");
    if (!measurements.is_array()) throw std::invalid_argument("measurements is not an array");
    result = CipherResult{};
    for (const auto& cell : measurements)
        result.measurements.push_back(cell_from(cell));
    read_if_present(in, "threads", result.threads, as_size);
    read_if_present(in, "seconds_per_measurement", result.seconds_per_measurement, as_number);
    read_if_present(in, "mode", result.mode, mode_from);
    read_if_present(in, "decrypt", result.decrypt, as_bool);
    read_if_present(in, "throttling", result.throttling, throttling_from);
    read_if_present(in, "steal_seconds", result.steal_seconds,
                    [](const json& value) -> std::optional<double> {
                        if (value.is_null()) return std::nullopt;
                        return number_or_throw(value);
                    });
    read_if_present(in, "wall_to_cpu_ratio", result.wall_to_cpu_ratio, as_number);
    read_if_present(in, "throttled", result.throttled, as_bool);
    read_if_present(in, "explanation", result.explanation, as_string);
    read_if_present(in, "openssl_version", result.openssl_version, as_string);
    read_if_present(in, "cpu_budget", result.cpu_budget,
                    [](const json& value) { return value.get<host::CpuBudget>(); });
    read_if_present(in, "partial", result.partial, as_bool);
    read_if_present(in, "series", result.series,
                    [](const json& value) { return series_from_json(value, "bytes"); });
    read_if_present(in, "series_change", result.series_change,
                    [](const json& value) { return series_change_from_json(value); });
    read_if_present(in, "sustained", result.sustained, [](const json& value) {
        return SustainedThroughput{non_negative_or_throw(value.at("window_seconds")),
                                   non_negative_or_throw(value.at("first_bytes_per_second")),
                                   non_negative_or_throw(value.at("last_bytes_per_second"))};
    });
    read_if_present(in, "thread_sweep", result.thread_sweep,
                    [](const json& value) { return value.get<ThreadSweep>(); });
    read_if_present(in, "openssl_cpu", result.openssl_cpu,
                    [](const json& value) { return value.get<host::OpensslCpu>(); });
}

std::vector<CipherResult> cipher_result_examples() {
    const core::Spread spread{1e9, 1.1e9, 1.2e9};
    const CipherCell cell{"aes-128-ctr", 16384, 2, 1,   61035,
                          1000000000,    1e9,   2, 5e8, CipherRepetitions{3, spread, spread}};
    ThreadSweep sweep;
    sweep.thread_counts = {1, 2};
    sweep.budget_cores = 2;
    sweep.budget_source = "cgroup";
    sweep.scaling = {CellScaling{
        "aes-128-ctr", 16384, {ScalingStep{2, 1e9, 5e8, 0.95, false, host::example_throttling()}}}};
    sweep.by_threads = {ThreadCountSummary{2, false, 0.9, 0.95, host::example_throttling()}};
    sweep.stops_growing_above = 2;
    sweep.explanation = "scales";
    CipherResult full{.measurements = {cell},
                      .threads = 2,
                      .seconds_per_measurement = 1,
                      .mode = CipherMode::aead_record,
                      .decrypt = true,
                      .throttling = host::example_throttling(),
                      .steal_seconds = 0.01,
                      .wall_to_cpu_ratio = 1,
                      .throttled = true,
                      .explanation = "throttled",
                      .openssl_version = "OpenSSL 3.0.17",
                      .cpu_budget = host::example_cpu_budget(),
                      .partial = true,
                      .series = {example_series_slice()},
                      .series_change = example_series_change(),
                      .sustained = SustainedThroughput{60, 1e9, 9e8},
                      .thread_sweep = sweep,
                      .openssl_cpu = host::example_openssl_cpu(host::ExampleArchitecture::x86)};
    // ARM's features, and every optional member of a list's entries unset.
    CipherResult sparse = full;
    sparse.openssl_cpu = host::example_openssl_cpu(host::ExampleArchitecture::arm);
    sparse.measurements[0].repetitions.reset();
    sparse.series = {example_sparse_series_slice()};
    sparse.series_change = example_sparse_series_change();
    sparse.thread_sweep->scaling[0].steps[0].throttling.reset();
    sparse.thread_sweep->by_threads[0].wall_growth.reset();
    sparse.thread_sweep->by_threads[0].throttling.reset();
    sparse.thread_sweep->stops_growing_above.reset();
    return {CipherResult{}, full, sparse};
}

}  // namespace hostprobe::probes
