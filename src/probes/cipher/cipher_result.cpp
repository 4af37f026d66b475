#include "probes/cipher/cipher_result.hpp"

#include <stdexcept>

#include "core/json_reads.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

// A field an older or smaller result may lack: read with `read` when present, else left as is.
template <typename Field, typename Read>
void read_if_present(const json& in, const char* key, Field& field, Read read) {
    const auto found = in.find(key);
    if (found != in.end()) field = read(*found);
}

// get<double>, get<bool> and get<std::string> throw on any other type; integers go through
// integer_or_throw, since get<size_t> of -1 or 1e300 is undefined.
const auto as_number = [](const json& value) { return value.get<double>(); };
const auto as_count = [](const json& value) { return integer_or_throw<uint64_t>(value); };
const auto as_size = [](const json& value) { return integer_or_throw<size_t>(value); };
const auto as_bool = [](const json& value) { return value.get<bool>(); };
const auto as_string = [](const json& value) { return value.get<std::string>(); };

json spread_json(const core::Spread& spread) {
    return {{"min", spread.min}, {"median", spread.median}, {"max", spread.max}};
}

core::Spread spread_from(const json& in) {
    return {in.at("min").get<double>(), in.at("median").get<double>(), in.at("max").get<double>()};
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
    cell.bytes_per_second = in.at("bytes_per_second").get<double>();
    cell.cpu_bytes_per_second = in.at("cpu_bytes_per_second").get<double>();
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
                                    in.at("throttled_seconds").get<double>()};
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
                        return value.get<double>();
                    });
    read_if_present(in, "wall_to_cpu_ratio", result.wall_to_cpu_ratio, as_number);
    read_if_present(in, "throttled", result.throttled, as_bool);
    read_if_present(in, "explanation", result.explanation, as_string);
    read_if_present(in, "openssl_version", result.openssl_version, as_string);
    read_if_present(in, "cpu_budget", result.cpu_budget,
                    [](const json& value) { return value.get<host::CpuBudget>(); });
    read_if_present(in, "partial", result.partial, as_bool);
}

}  // namespace hostprobe::probes
