// The files result's JSON (the contract of GET /v1/runs/{id} and the journal), its text report
// and its gauges, over a fixed result and the golden journal's run (written by the code before
// the typed result); and damaged results refused as values.
#include "probes/files/files_result.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "probes/files/files_probe.hpp"
#include "support/paths.hpp"
#include "support/result_checks.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

// Percentiles step, 2 x step, ... 17 x step.
LatencySummary fixed_latency(uint64_t step, uint64_t count, double mean) {
    LatencySummary latency{
        .count = count, .min = step / 2, .max = step * 18, .mean = mean, .stddev = 10.5};
    for (size_t i = 0; i < latency.percentiles.size(); ++i)
        latency.percentiles[i] = step * (i + 1);
    latency.bins = {{step, count}};
    return latency;
}

FilesResult fixed_files_result() {
    FilesResult result;
    result.directory = "/efs/www";
    result.files = 1000;
    result.file_size = 4096;
    result.threads = 4;
    result.ops["create"] = {.ops = 1000,
                            .seconds = 2.5,
                            .ops_per_second = 400,
                            .latency = fixed_latency(1000, 1000, 9500.5)};
    result.ops["stat"] = {.ops = 600,
                          .seconds = 0.25,
                          .ops_per_second = 2400,
                          .latency = fixed_latency(100, 600, 1250.25)};
    result.partial = true;
    return result;
}

// fixed_files_result() as the code before the typed result wrote it (json built key by key in
// run()).
const char* const kFixedFilesResult = R"({
  "directory": "/efs/www", "files": 1000, "file_size": 4096, "threads": 4,
  "ops": {
    "create": {"ops": 1000, "seconds": 2.5, "ops_per_second": 400.0,
               "lat_ns": {"N": 1000, "min": 500, "max": 18000, "mean": 9500.5, "stddev": 10.5,
                          "percentile": {"1.000000": 1000, "5.000000": 2000, "10.000000": 3000,
                                         "20.000000": 4000, "30.000000": 5000,
                                         "40.000000": 6000, "50.000000": 7000,
                                         "60.000000": 8000, "70.000000": 9000,
                                         "80.000000": 10000, "90.000000": 11000,
                                         "95.000000": 12000, "99.000000": 13000,
                                         "99.500000": 14000, "99.900000": 15000,
                                         "99.950000": 16000, "99.990000": 17000},
                          "bins": {"1000": 1000}}},
    "stat": {"ops": 600, "seconds": 0.25, "ops_per_second": 2400.0,
             "lat_ns": {"N": 600, "min": 50, "max": 1800, "mean": 1250.25, "stddev": 10.5,
                        "percentile": {"1.000000": 100, "5.000000": 200, "10.000000": 300,
                                       "20.000000": 400, "30.000000": 500, "40.000000": 600,
                                       "50.000000": 700, "60.000000": 800, "70.000000": 900,
                                       "80.000000": 1000, "90.000000": 1100,
                                       "95.000000": 1200, "99.000000": 1300,
                                       "99.500000": 1400, "99.900000": 1500,
                                       "99.950000": 1600, "99.990000": 1700},
                        "bins": {"100": 600}}}},
  "partial": true})";

const FilesProbe& files_probe() {
    static const FilesProbe files{ProbeSetup{}};
    return files;
}

Result<std::vector<prometheus::MetricFamily>> files_metrics_of(const json& result) {
    const runs::Probe& as_probe = files_probe();
    return as_probe.result_metrics(result, 1700000000);
}

}  // namespace

TEST_CASE("a fixed files result writes the JSON the probe always wrote, types included") {
    const json written = fixed_files_result();
    const json expected = json::parse(kFixedFilesResult);
    CHECK(written == expected);
    // As a client reads it (a parsed document knows no signed non-negative integers).
    CHECK(testing::json_type_shape(json::parse(written.dump())) ==
          testing::json_type_shape(expected));
    CHECK(written.dump() == expected.dump());
}

TEST_CASE("a files result survives the JSON round trip, byte for byte") {
    const FilesResult original = fixed_files_result();
    const auto restored = json(original).get<FilesResult>();
    CHECK(restored.directory == "/efs/www");
    CHECK(restored.files == 1000);
    CHECK(restored.file_size == 4096);
    CHECK(restored.threads == 4);
    REQUIRE(restored.ops.size() == 2);
    CHECK(restored.ops.at("create").ops == 1000);
    CHECK(restored.ops.at("stat").seconds == 0.25);
    CHECK(restored.ops.at("stat").latency.at_percentile(99) == 1300);
    CHECK(restored.partial);
    CHECK(json(restored).dump() == json(original).dump());

    // The golden journal's run, measured by the code before the typed result.
    const json golden = testing::golden_run("files")["result"];
    CHECK(json(golden.get<FilesResult>()).dump() == golden.dump());
}

TEST_CASE("the files report of a result, as the code before the typed result wrote it") {
    const json golden = testing::golden_run("files");
    CHECK(files_report(golden["result"].get<FilesResult>()) ==
          golden["text_report"].get<std::string>());

    CHECK(files_report(fixed_files_result()) ==
          "hostprobe files: 1000 files of 4k, 4 thread(s), in /efs/www\n"
          "(partial: the run was cancelled)\n"
          "op         ops/s      avg(us)    p50(us)    p99(us)  p99.9(us)\n"
          "create       400.0        9.5        7.0       13.0       15.0\n"
          "stat        2400.0        1.3        0.7        1.3        1.5\n");
}

TEST_CASE("the gauges of a fixed files result: rate and latency per operation") {
    auto families = files_metrics_of(json::parse(kFixedFilesResult));
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families) ==
          "hostprobe_files_ops_per_second{directory=/efs/www,op=create,} 400\n"
          "hostprobe_files_ops_per_second{directory=/efs/www,op=stat,} 2400\n"
          "hostprobe_files_op_latency_seconds{directory=/efs/www,op=create,} count=1000 "
          "sum=0.0095005000000000003 0.5:6.9999999999999999e-06 0.9:1.1e-05 "
          "0.99:1.2999999999999999e-05 0.999:1.5e-05\n"
          "hostprobe_files_op_latency_seconds{directory=/efs/www,op=stat,} count=600 "
          "sum=0.00075014999999999999 0.5:6.9999999999999997e-07 0.9:1.1000000000000001e-06 "
          "0.99:1.3e-06 0.999:1.5e-06\n");
}

TEST_CASE("files results the old code wrote still parse: the gauges' fields alone") {
    json smallest = json::parse(kFixedFilesResult);
    for (const char* key : {"files", "file_size", "threads", "partial"})
        smallest.erase(key);
    for (auto& [name, operation] : smallest["ops"].items()) {
        operation.erase("ops");
        operation.erase("seconds");
    }
    const auto parsed = files_probe().parse_result(smallest);
    REQUIRE(parsed.ok());
    CHECK_FALSE(parsed->partial);
    CHECK(parsed->threads == 1);
    auto families = files_metrics_of(smallest);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families) ==
          testing::families_text(*files_metrics_of(json::parse(kFixedFilesResult))));

    // A run stopped before its first phase ended holds no operations and exports none.
    json empty = json::parse(kFixedFilesResult);
    empty["ops"] = json::object();
    families = files_metrics_of(empty);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families).empty());
}

TEST_CASE("a damaged files result gives a parse error, never an exception or garbage gauges") {
    const auto top = [](const char* key, const json& value) {
        json result = json::parse(kFixedFilesResult);
        result[key] = value;
        return result;
    };
    const auto create = [](const char* key, const json& value) {
        json result = json::parse(kFixedFilesResult);
        result["ops"]["create"][key] = value;
        return result;
    };
    json without_directory = json::parse(kFixedFilesResult);
    without_directory.erase("directory");
    json without_ops = json::parse(kFixedFilesResult);
    without_ops.erase("ops");
    json without_rate = json::parse(kFixedFilesResult);
    without_rate["ops"]["stat"].erase("ops_per_second");
    json without_latency = json::parse(kFixedFilesResult);
    without_latency["ops"]["stat"].erase("lat_ns");
    json negative_count = json::parse(kFixedFilesResult);
    negative_count["ops"]["create"]["lat_ns"]["N"] = -1;
    json missing_percentile = json::parse(kFixedFilesResult);
    missing_percentile["ops"]["create"]["lat_ns"]["percentile"].erase("99.900000");
    const std::vector<json> damaged = {
        json(nullptr),
        json(5),
        json::object(),
        without_directory,
        without_ops,
        without_rate,
        without_latency,
        negative_count,
        missing_percentile,
        top("directory", nullptr),
        top("ops", json::array()),
        top("ops", json{{"create", 5}}),
        top("files", -1),
        top("file_size", 4.5),
        top("threads", "auto"),
        top("partial", 0),
        create("ops_per_second", "many"),
        create("ops_per_second", -1),
        create("ops", -3),
        create("seconds", "2"),
        create("lat_ns", json::object()),
    };
    for (const auto& result : damaged) {
        CAPTURE(result.dump());
        Result<std::vector<prometheus::MetricFamily>> families =
            std::vector<prometheus::MetricFamily>{};
        CHECK_NOTHROW(families = files_metrics_of(result));
        REQUIRE_FALSE(families.ok());
        CHECK(families.error().code == ErrorCode::parse_error);
        CHECK(families.error().message.rfind("files result does not parse: ", 0) == 0);
        const auto parsed = files_probe().parse_result(result);
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().code == ErrorCode::parse_error);
    }
}
