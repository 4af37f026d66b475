#include "probes/files/files_result.hpp"

#include <cstdio>
#include <stdexcept>

#include "core/json_reads.hpp"
#include "core/result_reads.hpp"
#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

using namespace result_reads;

json operation_json(const FilesOperation& operation) {
    return {{"ops", operation.ops},
            {"seconds", operation.seconds},
            {"ops_per_second", operation.ops_per_second},
            {"lat_ns", operation.latency}};
}

// What the metrics read is required; the rest is read when present.
FilesOperation operation_from(const json& in) {
    FilesOperation operation;
    operation.ops_per_second = non_negative_or_throw(in.at("ops_per_second"));
    operation.latency = in.at("lat_ns").get<LatencySummary>();
    read_if_present(in, "ops", operation.ops, as_count);
    read_if_present(in, "seconds", operation.seconds, as_seconds);
    return operation;
}

}  // namespace

void to_json(json& out, const FilesResult& result) {
    json ops = json::object();
    for (const auto& [name, operation] : result.ops)
        ops[name] = operation_json(operation);
    out = {{"directory", result.directory}, {"files", result.files},
           {"file_size", result.file_size}, {"threads", result.threads},
           {"ops", std::move(ops)},         {"partial", result.partial}};
}

void from_json(const json& in, FilesResult& result) {
    result = FilesResult{};
    result.directory = in.at("directory").get<std::string>();
    const json& ops = in.at("ops");
    if (!ops.is_object()) throw std::invalid_argument("ops is not an object");
    for (const auto& [name, operation] : ops.items())
        result.ops[name] = operation_from(operation);
    read_if_present(in, "files", result.files, as_count);
    read_if_present(in, "file_size", result.file_size, as_count);
    read_if_present(in, "threads", result.threads, as_count);
    read_if_present(in, "partial", result.partial,
                    [](const json& value) { return value.get<bool>(); });
}

std::string files_report(const FilesResult& result) {
    std::string text = "hostprobe files: " + std::to_string(result.files) + " files of " +
                       format_byte_size(result.file_size) + ", " + std::to_string(result.threads) +
                       " thread(s), in " + result.directory + "\n";
    if (result.partial) text += "(partial: the run was cancelled)\n";
    text += "op         ops/s      avg(us)    p50(us)    p99(us)  p99.9(us)\n";
    for (const auto& [name, operation] : result.ops) {
        const LatencySummary& latency = operation.latency;
        const auto usec = [&](double point) {
            return static_cast<double>(latency.at_percentile(point)) / 1000;
        };
        char line[160];
        std::snprintf(line, sizeof line, "%-8s %9.1f %10.1f %10.1f %10.1f %10.1f\n", name.c_str(),
                      operation.ops_per_second, latency.mean / 1000, usec(50), usec(99),
                      usec(99.9));
        text += line;
    }
    return text;
}

std::vector<FilesResult> files_result_examples(const std::vector<std::string>& operations) {
    FilesResult full{.directory = "/data",
                     .files = 100,
                     .file_size = 4096,
                     .threads = 2,
                     .ops = {},
                     .partial = true};
    for (const auto& operation : operations)
        full.ops[operation] = FilesOperation{100, 0.5, 200, example_latency_summary()};
    return {FilesResult{}, full};
}

}  // namespace hostprobe::probes
