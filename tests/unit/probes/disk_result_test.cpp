// The disk result's JSON (the contract of GET /v1/runs/{id} and the journal), its fio text report
// and its gauges, over a fixed result and the golden journal's run (written by the code before
// the typed result); and damaged results refused as values.
#include "probes/disk/disk_result.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "probes/disk/disk_probe.hpp"
#include "probes/disk/fio_report.hpp"
#include "support/paths.hpp"
#include "support/result_checks.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

// Percentiles step, 2 x step, ... 17 x step.
LatencySummary fixed_latency(uint64_t step, uint64_t count, uint64_t min, uint64_t max, double mean,
                             double stddev) {
    LatencySummary latency{.count = count, .min = min, .max = max, .mean = mean, .stddev = stddev};
    for (size_t i = 0; i < latency.percentiles.size(); ++i)
        latency.percentiles[i] = step * (i + 1);
    latency.bins = {{step, count - 24}, {step * 17, 24}};
    return latency;
}

DiskResult fixed_disk_result() {
    DiskResult result;
    result.directory = "/data/hostprobe";
    result.job_options = {.directory = "/data/hostprobe",
                          .rw = "randrw",
                          .rwmixread = 70,
                          .bs = "4k",
                          .size = "1m",
                          .numjobs = 2,
                          .runtime = {1.5, false},
                          .time_based = true,
                          .ramp_time = {0, true},
                          .direct = true,
                          .fsync = 0,
                          .ioengine = "io_uring",
                          .iodepth = 8};
    result.read = {.io_bytes = 4194304,
                   .io_kbytes = 4096,
                   .bw_bytes = 2796202,
                   .bw = 2730,
                   .iops = 682.5,
                   .runtime_ms = 1500,
                   .total_ios = 1024,
                   .clat = fixed_latency(1000, 1024, 900, 17500, 7250.5, 3100.25)};
    result.write = {.io_bytes = 1048576,
                    .io_kbytes = 1024,
                    .bw_bytes = 699050,
                    .bw = 682,
                    .iops = 170.5,
                    .runtime_ms = 1500,
                    .total_ios = 256,
                    .clat = fixed_latency(2000, 256, 1900, 34500, 14500.5, 6200.25)};
    result.iops_series = {900, 380};
    result.read.clat_p99_series_ns = {12000, 17000};
    result.write.clat_p99_series_ns = {26000, std::nullopt};
    result.usr_cpu_seconds = 0.25;
    result.sys_cpu_seconds = 0.75;
    result.layout_seconds = 0.125;
    result.runtime_seconds = 1.5;
    result.partial = true;
    return result;
}

// fixed_disk_result() as the code before the typed result wrote it (json built key by key in
// run()).
const char* const kFixedDiskResult = R"({
  "directory": "/data/hostprobe",
  "job_options": {"directory": "/data/hostprobe", "rw": "randrw", "rwmixread": 70, "bs": "4k",
                  "size": "1m", "numjobs": 2, "runtime": 1.5, "time_based": true,
                  "ramp_time": 0, "direct": true, "fsync": 0, "ioengine": "io_uring",
                  "iodepth": 8},
  "read": {"io_bytes": 4194304, "io_kbytes": 4096, "bw_bytes": 2796202, "bw": 2730,
           "iops": 682.5, "runtime": 1500, "total_ios": 1024,
           "clat_ns": {"N": 1024, "min": 900, "max": 17500, "mean": 7250.5, "stddev": 3100.25,
                       "percentile": {"1.000000": 1000, "5.000000": 2000, "10.000000": 3000,
                                      "20.000000": 4000, "30.000000": 5000, "40.000000": 6000,
                                      "50.000000": 7000, "60.000000": 8000, "70.000000": 9000,
                                      "80.000000": 10000, "90.000000": 11000,
                                      "95.000000": 12000, "99.000000": 13000,
                                      "99.500000": 14000, "99.900000": 15000,
                                      "99.950000": 16000, "99.990000": 17000},
                       "bins": {"1000": 1000, "17000": 24}}},
  "write": {"io_bytes": 1048576, "io_kbytes": 1024, "bw_bytes": 699050, "bw": 682,
            "iops": 170.5, "runtime": 1500, "total_ios": 256,
            "clat_ns": {"N": 256, "min": 1900, "max": 34500, "mean": 14500.5, "stddev": 6200.25,
                        "percentile": {"1.000000": 2000, "5.000000": 4000, "10.000000": 6000,
                                       "20.000000": 8000, "30.000000": 10000,
                                       "40.000000": 12000, "50.000000": 14000,
                                       "60.000000": 16000, "70.000000": 18000,
                                       "80.000000": 20000, "90.000000": 22000,
                                       "95.000000": 24000, "99.000000": 26000,
                                       "99.500000": 28000, "99.900000": 30000,
                                       "99.950000": 32000, "99.990000": 34000},
                        "bins": {"2000": 232, "34000": 24}}},
  "iops_series": [900, 380],
  "usr_cpu_seconds": 0.25, "sys_cpu_seconds": 0.75, "layout_seconds": 0.125,
  "runtime_seconds": 1.5, "partial": true})";

// The per-second p99 fixed_disk_result() adds to kFixedDiskResult.
json with_p99_series(json result) {
    result["read"]["clat_p99_series_ns"] = json::parse("[12000, 17000]");
    result["write"]["clat_p99_series_ns"] = json::parse("[26000, null]");
    return result;
}

const DiskProbe& disk_probe() {
    static const DiskProbe disk{ProbeSetup{}};
    return disk;
}

Result<std::vector<prometheus::MetricFamily>> disk_metrics_of(const json& result) {
    const runs::Probe& as_probe = disk_probe();
    return as_probe.result_metrics(result, 1700000000);
}

}  // namespace

TEST_CASE("a fixed disk result writes the JSON the probe always wrote, types included") {
    const json written = fixed_disk_result();
    const json expected = with_p99_series(json::parse(kFixedDiskResult));
    CHECK(written == expected);
    // As a client reads it (a parsed document knows no signed non-negative integers).
    CHECK(testing::json_type_shape(json::parse(written.dump())) ==
          testing::json_type_shape(expected));
    CHECK(written.dump() == expected.dump());
}

TEST_CASE("a disk result survives the JSON round trip, byte for byte") {
    const DiskResult original = fixed_disk_result();
    const auto restored = json(original).get<DiskResult>();
    CHECK(restored.directory == "/data/hostprobe");
    CHECK(restored.job_options.rw == "randrw");
    CHECK(restored.job_options.runtime.value == 1.5);
    CHECK_FALSE(restored.job_options.runtime.integral);
    CHECK(restored.job_options.ramp_time.integral);
    CHECK(restored.job_options.iodepth == 8);
    CHECK(restored.read.total_ios == 1024);
    CHECK(restored.read.clat.at_percentile(99.9) == 15000);
    CHECK(restored.write.bw_bytes == 699050);
    CHECK(restored.iops_series == std::vector<uint64_t>{900, 380});
    CHECK(restored.read.clat_p99_series_ns == LatencySeries{12000, 17000});
    CHECK(restored.write.clat_p99_series_ns == LatencySeries{26000, std::nullopt});
    CHECK(restored.layout_seconds == 0.125);
    CHECK(restored.partial);
    CHECK(json(restored).dump() == json(original).dump());

    // The golden journal's run, measured by the code before the typed result.
    const json golden = testing::golden_run("disk")["result"];
    CHECK(json(golden.get<DiskResult>()).dump() == golden.dump());
}

TEST_CASE("the fio report of a result, as the code before the typed result wrote it") {
    const json golden = testing::golden_run("disk");
    CHECK(fio_report(golden["result"].get<DiskResult>()) ==
          golden["text_report"].get<std::string>());

    CHECK(fio_report(fixed_disk_result()) ==
          "hostprobe: (g=0): rw=randrw, bs=(R) 4k-4k, ioengine=io_uring, iodepth=8\n"
          "hostprobe: (groupid=0, jobs=2): err= 0\n"
          "  (partial: the run was cancelled)\n"
          "  read: IOPS=682, BW=2731KiB/s (2796kB/s)(4MiB/1500msec)\n"
          "    clat (usec): min=1, max=18, avg=7.25, stdev=3.10\n"
          "    clat percentiles (usec):\n"
          "     |  1.00th=[    1],  5.00th=[    2], 10.00th=[    3], 20.00th=[    4],\n"
          "     | 30.00th=[    5], 40.00th=[    6], 50.00th=[    7], 60.00th=[    8],\n"
          "     | 70.00th=[    9], 80.00th=[   10], 90.00th=[   11], 95.00th=[   12],\n"
          "     | 99.00th=[   13], 99.50th=[   14], 99.90th=[   15], 99.95th=[   16],\n"
          "     | 99.99th=[   17]\n"
          "    clat p99 per second: min 12 µs, median 12 µs, max 17 µs (second 1)\n"
          "  write: IOPS=170, BW=683KiB/s (699kB/s)(1MiB/1500msec)\n"
          "    clat (usec): min=2, max=34, avg=14.50, stdev=6.20\n"
          "    clat percentiles (usec):\n"
          "     |  1.00th=[    2],  5.00th=[    4], 10.00th=[    6], 20.00th=[    8],\n"
          "     | 30.00th=[   10], 40.00th=[   12], 50.00th=[   14], 60.00th=[   16],\n"
          "     | 70.00th=[   18], 80.00th=[   20], 90.00th=[   22], 95.00th=[   24],\n"
          "     | 99.00th=[   26], 99.50th=[   28], 99.90th=[   30], 99.95th=[   32],\n"
          "     | 99.99th=[   34]\n"
          "    clat p99 per second: min 26 µs, median 26 µs, max 26 µs (second 0)\n"
          "  cpu          : usr=0.25s, sys=0.75s\n");

    // Units by size; the median of an even count is the lower middle one; null seconds skipped,
    // and the one after the runtime (only the I/Os in flight at the deadline).
    DiskResult spread = fixed_disk_result();
    spread.runtime_seconds = 5;
    spread.read.clat_p99_series_ns = {840,          4'100'000, 1'250'000'000,
                                      std::nullopt, 250'000,   9'000'000'000};
    CHECK(fio_report(spread).find(
              "    clat p99 per second: min 840 ns, median 250 µs, max 1.25 s (second 2)\n") !=
          std::string::npos);
    // No second with a p99 (all null, or a result from before the series): no line.
    spread.read.clat_p99_series_ns = {std::nullopt, std::nullopt};
    spread.write.clat_p99_series_ns = {};
    CHECK(fio_report(spread).find("per second") == std::string::npos);
}

TEST_CASE("the gauges of a fixed disk result: each direction the pattern uses") {
    auto families = disk_metrics_of(json::parse(kFixedDiskResult));
    REQUIRE(families.ok());
    const std::string read = "directory=/data/hostprobe,rw=randrw,bs=4k,direction=read,";
    const std::string write = "directory=/data/hostprobe,rw=randrw,bs=4k,direction=write,";
    CHECK(testing::families_text(*families) ==
          "hostprobe_disk_iops{" + read + "} 682.5\n" + "hostprobe_disk_iops{" + write +
              "} 170.5\n" + "hostprobe_disk_bandwidth_bytes_per_second{" + read + "} 2796202\n" +
              "hostprobe_disk_bandwidth_bytes_per_second{" + write + "} 699050\n" +
              "hostprobe_disk_latency_seconds{" + read +
              "} count=1024 sum=0.0074245120000000003 0.5:6.9999999999999999e-06 "
              "0.9:1.1e-05 0.99:1.2999999999999999e-05 0.999:1.5e-05\n" +
              "hostprobe_disk_latency_seconds{" + write +
              "} count=256 sum=0.0037121279999999999 0.5:1.4e-05 0.9:2.1999999999999999e-05 "
              "0.99:2.5999999999999998e-05 0.999:3.0000000000000001e-05\n");

    // The worst second's p99 of each direction that has one.
    families = disk_metrics_of(with_p99_series(json::parse(kFixedDiskResult)));
    REQUIRE(families.ok());
    const std::string text = testing::families_text(*families);
    CHECK(text.find("hostprobe_disk_latency_p99_worst_second_seconds{" + read + "} 1.7e-05\n" +
                    "hostprobe_disk_latency_p99_worst_second_seconds{" + write +
                    "} 2.5999999999999998e-05\n") != std::string::npos);

    // Not the second after the runtime.
    json one_second = with_p99_series(json::parse(kFixedDiskResult));
    one_second["runtime_seconds"] = 1.0;
    families = disk_metrics_of(one_second);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families).find(
              "hostprobe_disk_latency_p99_worst_second_seconds{" + read + "} 1.2e-05\n") !=
          std::string::npos);

    // A read-only pattern exports its read direction alone.
    json randread = with_p99_series(json::parse(kFixedDiskResult));
    randread["job_options"]["rw"] = "randread";
    families = disk_metrics_of(randread);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families).find("direction=write") == std::string::npos);
    CHECK(testing::families_text(*families).find("direction=read") != std::string::npos);
}

TEST_CASE("disk results the old code wrote still parse: the gauges' fields alone") {
    json smallest = json::parse(kFixedDiskResult);
    smallest.erase("iops_series");
    smallest.erase("usr_cpu_seconds");
    smallest.erase("sys_cpu_seconds");
    smallest.erase("layout_seconds");
    smallest.erase("runtime_seconds");
    smallest.erase("partial");
    smallest["job_options"] = {{"rw", "randrw"}, {"bs", "4k"}};
    for (const char* direction : {"read", "write"}) {
        for (const char* key : {"io_bytes", "io_kbytes", "bw", "runtime", "total_ios"})
            smallest[direction].erase(key);
    }
    const auto parsed = disk_probe().parse_result(smallest);
    REQUIRE(parsed.ok());
    CHECK_FALSE(parsed->partial);
    CHECK(parsed->read.clat_p99_series_ns.empty());
    auto families = disk_metrics_of(smallest);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families) ==
          testing::families_text(*disk_metrics_of(json::parse(kFixedDiskResult))));
}

TEST_CASE("a damaged disk result gives a parse error, never an exception or garbage gauges") {
    const auto top = [](const char* key, const json& value) {
        json result = json::parse(kFixedDiskResult);
        result[key] = value;
        return result;
    };
    const auto option = [](const char* key, const json& value) {
        json result = json::parse(kFixedDiskResult);
        result["job_options"][key] = value;
        return result;
    };
    const auto read = [](const char* key, const json& value) {
        json result = json::parse(kFixedDiskResult);
        result["read"][key] = value;
        return result;
    };
    const auto without = [](std::initializer_list<const char*> path) {
        json result = json::parse(kFixedDiskResult);
        json* parent = &result;
        const char* last = nullptr;
        for (const char* key : path) {
            if (last != nullptr) parent = &(*parent)[last];
            last = key;
        }
        parent->erase(last);
        return result;
    };
    json negative_count = json::parse(kFixedDiskResult);
    negative_count["write"]["clat_ns"]["N"] = -1;
    json fractional_percentile = json::parse(kFixedDiskResult);
    fractional_percentile["read"]["clat_ns"]["percentile"]["99.900000"] = 1.5;
    const std::vector<json> damaged = {
        json(nullptr),
        json(5),
        json::object(),
        without({"directory"}),
        without({"job_options"}),
        without({"job_options", "rw"}),
        without({"job_options", "bs"}),
        without({"read"}),
        without({"write"}),
        without({"read", "iops"}),
        without({"write", "bw_bytes"}),
        without({"read", "clat_ns"}),
        without({"read", "clat_ns", "percentile", "50.000000"}),
        top("directory", 7),
        top("job_options", "randread"),
        top("read", json::array()),
        top("iops_series", json{1, -2}),
        top("iops_series", 5),
        top("partial", "no"),
        top("layout_seconds", -1),
        top("usr_cpu_seconds", "0.5"),
        option("rw", 3),
        option("bs", 4096),
        option("numjobs", -1),
        option("iodepth", 2.5),
        option("runtime", "30"),
        option("direct", 1),
        read("iops", "fast"),
        read("iops", -5),
        read("bw_bytes", -1),
        read("bw_bytes", 1e300),
        read("total_ios", -3),
        read("runtime", 0.5),
        read("clat_p99_series_ns", 5),
        read("clat_p99_series_ns", json{1, -2}),
        read("clat_p99_series_ns", json{1.5}),
        read("clat_p99_series_ns", json{"1"}),
        negative_count,
        fractional_percentile,
    };
    for (const auto& result : damaged) {
        CAPTURE(result.dump());
        Result<std::vector<prometheus::MetricFamily>> families =
            std::vector<prometheus::MetricFamily>{};
        CHECK_NOTHROW(families = disk_metrics_of(result));
        REQUIRE_FALSE(families.ok());
        CHECK(families.error().code == ErrorCode::parse_error);
        CHECK(families.error().message.rfind("disk result does not parse: ", 0) == 0);
        const auto parsed = disk_probe().parse_result(result);
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().code == ErrorCode::parse_error);
    }
}
