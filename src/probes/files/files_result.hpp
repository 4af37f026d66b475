// The files probe's result: what one run measured, in the shape of its JSON (the contract of
// GET /v1/runs/{id} and the journal). The text report and the metrics are written over this.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "probes/storage/latency_summary.hpp"

namespace hostprobe::probes {

// One operation (create, stat, read or unlink) over every file.
struct FilesOperation {
    uint64_t ops = 0;
    double seconds = 0;  // wall-clock span of the phase
    double ops_per_second = 0;
    LatencySummary latency;  // "lat_ns"
};

struct FilesResult {
    std::string directory;  // the directory used, as opened
    uint64_t files = 0;
    uint64_t file_size = 0;
    uint64_t threads = 1;
    // By name, in the order of the JSON object's keys (create, read, stat, unlink); a run
    // stopped early holds only the phases it began.
    std::map<std::string, FilesOperation> ops;
    bool partial = false;  // the run was stopped before its last phase ended
};

// {"directory", "files", "file_size", "threads", "ops": {"<name>": {"ops", "seconds",
//  "ops_per_second", "lat_ns"}}, "partial"}.
void to_json(nlohmann::json& out, const FilesResult& result);
// Throws on a result the metrics cannot read (it came from a damaged or foreign journal):
// `directory` and `ops` with each operation's `ops_per_second` and `lat_ns` are required; the
// other fields are read when present, with their types checked, and keep their defaults when
// absent.
void from_json(const nlohmann::json& in, FilesResult& result);

// The report: one line per operation with its rate, mean and p50/p99/p99.9 latency.
std::string files_report(const FilesResult& result);

// A default result and a populated one (each operation measured): what the result's schema in
// GET /openapi.json is read off. A member added to the result is set here too.
std::vector<FilesResult> files_result_examples(const std::vector<std::string>& operations);

}  // namespace hostprobe::probes
