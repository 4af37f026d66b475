// The cipher result's JSON (the contract of GET /v1/runs/{id} and the journal), its text report
// and its gauges, over fixed results; and damaged results refused as values.
#include "probes/cipher/cipher_result.hpp"

#include <doctest/doctest.h>

#include <cstdio>

#include "probes/cipher/cipher_probe.hpp"
#include "probes/cipher/speed_report.hpp"
#include "support/result_checks.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

CipherResult fixed_cipher_result() {
    CipherResult result;
    CipherCell gcm{.cipher = "aes-128-gcm",
                   .block_bytes = 16,
                   .threads = 2,
                   .seconds = 0.5,
                   .ops = 1000,
                   .bytes = 16000,
                   .bytes_per_second = 32000.5,
                   .cpu_seconds = 0.25,
                   .cpu_bytes_per_second = 64000};
    gcm.repetitions = CipherRepetitions{3, {30000, 32000.5, 33000}, {60000, 64000, 65000}};
    CipherCell ctr{.cipher = "aes-128-ctr",
                   .block_bytes = 8192,
                   .threads = 2,
                   .seconds = 0.5,
                   .ops = 4,
                   .bytes = 32768,
                   .bytes_per_second = 9000,
                   .cpu_seconds = 1,
                   .cpu_bytes_per_second = 9500.25};
    result.measurements = {gcm, ctr};
    result.threads = 2;
    result.seconds_per_measurement = 0.5;
    result.mode = CipherMode::aead_record;
    result.decrypt = true;
    result.throttling = host::ThrottlingCounters{30, 29, 2.25};
    result.steal_seconds = 0.125;
    result.wall_to_cpu_ratio = 0.5;
    result.throttled = true;
    result.explanation = "why";
    result.openssl_version = "OpenSSL 3.0.11 19 Sep 2023";
    result.cpu_budget = {.cores = 0.25, .workers = 1, .visible_cpus = 2, .source = "cgroup"};
    result.partial = true;
    return result;
}

// fixed_cipher_result() as the code before the typed result wrote it (json built key by key in
// run()).
const char* const kFixedCipherResult = R"({
  "measurements": [
    {"cipher": "aes-128-gcm", "block_bytes": 16, "threads": 2, "seconds": 0.5, "ops": 1000,
     "bytes": 16000, "bytes_per_second": 32000.5, "cpu_seconds": 0.25,
     "cpu_bytes_per_second": 64000.0,
     "repetitions": {"count": 3,
                     "bytes_per_second": {"min": 30000.0, "median": 32000.5, "max": 33000.0},
                     "cpu_bytes_per_second": {"min": 60000.0, "median": 64000.0,
                                              "max": 65000.0}}},
    {"cipher": "aes-128-ctr", "block_bytes": 8192, "threads": 2, "seconds": 0.5, "ops": 4,
     "bytes": 32768, "bytes_per_second": 9000.0, "cpu_seconds": 1.0,
     "cpu_bytes_per_second": 9500.25}],
  "threads": 2, "seconds_per_measurement": 0.5, "mode": "aead-record", "decrypt": true,
  "throttling": {"periods": 30, "throttled_periods": 29, "throttled_seconds": 2.25},
  "steal_seconds": 0.125, "wall_to_cpu_ratio": 0.5, "throttled": true, "explanation": "why",
  "openssl_version": "OpenSSL 3.0.11 19 Sep 2023",
  "cpu_budget": {"cores": 0.25, "workers": 1, "visible_cpus": 2, "source": "cgroup"},
  "partial": true})";

Result<std::vector<prometheus::MetricFamily>> cipher_metrics_of(const json& result) {
    const CipherProbe probe;
    const runs::Probe& as_probe = probe;
    return as_probe.result_metrics(result, 1700000000);
}

}  // namespace

TEST_CASE("a fixed cipher result writes the JSON the probe always wrote, types included") {
    const json written = fixed_cipher_result();
    const json expected = json::parse(kFixedCipherResult);
    CHECK(written == expected);
    CHECK(testing::json_type_shape(written) == testing::json_type_shape(expected));
    CHECK(written.dump() == expected.dump());
}

TEST_CASE("a cipher result survives the JSON round trip") {
    const CipherResult original = fixed_cipher_result();
    const auto restored = json(original).get<CipherResult>();
    REQUIRE(restored.measurements.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        const CipherCell& a = original.measurements[i];
        const CipherCell& b = restored.measurements[i];
        CHECK(a.cipher == b.cipher);
        CHECK(a.block_bytes == b.block_bytes);
        CHECK(a.threads == b.threads);
        CHECK(a.seconds == b.seconds);
        CHECK(a.ops == b.ops);
        CHECK(a.bytes == b.bytes);
        CHECK(a.bytes_per_second == b.bytes_per_second);
        CHECK(a.cpu_seconds == b.cpu_seconds);
        CHECK(a.cpu_bytes_per_second == b.cpu_bytes_per_second);
        CHECK(a.repetitions.has_value() == b.repetitions.has_value());
    }
    REQUIRE(restored.measurements[0].repetitions);
    CHECK(restored.measurements[0].repetitions->count == 3);
    CHECK(restored.measurements[0].repetitions->bytes_per_second.min == 30000);
    CHECK(restored.measurements[0].repetitions->cpu_bytes_per_second.max == 65000);
    CHECK(restored.threads == 2);
    CHECK(restored.seconds_per_measurement == 0.5);
    CHECK(restored.mode == CipherMode::aead_record);
    CHECK(restored.decrypt);
    REQUIRE(restored.throttling);
    CHECK(restored.throttling->periods == 30);
    CHECK(restored.throttling->throttled_periods == 29);
    CHECK(restored.throttling->throttled_seconds == 2.25);
    CHECK(restored.steal_seconds == 0.125);
    CHECK(restored.wall_to_cpu_ratio == 0.5);
    CHECK(restored.throttled);
    CHECK(restored.explanation == "why");
    CHECK(restored.openssl_version == original.openssl_version);
    CHECK(restored.cpu_budget.cores == 0.25);
    CHECK(restored.cpu_budget.workers == 1);
    CHECK(restored.cpu_budget.visible_cpus == 2);
    CHECK(restored.cpu_budget.source == "cgroup");
    CHECK(restored.partial);
    CHECK(json(restored).dump() == json(original).dump());
}

TEST_CASE("the speed report of a fixed result, in openssl speed's layout") {
    CHECK(speed_report(fixed_cipher_result()) ==
          "hostprobe cipher: 2 thread(s), 0.5 s per measurement, mode aead-record, decrypt, "
          "OpenSSL 3.0.11 19 Sep 2023\n"
          "(partial: the run was cancelled)\n"
          "\n"
          "Wall clock (what `openssl speed -elapsed` prints):\n"
          "The 'numbers' are in 1000s of bytes per second processed.\n"
          "type             16 bytes   8192 bytes\n"
          "aes-128-gcm         32.00k          n/a \n"
          "aes-128-ctr            n/a      9000.00 \n"
          "\n"
          "CPU time (what `openssl speed` prints without -elapsed):\n"
          "The 'numbers' are in 1000s of bytes per second processed.\n"
          "type             16 bytes   8192 bytes\n"
          "aes-128-gcm         64.00k          n/a \n"
          "aes-128-ctr            n/a      9500.25 \n"
          "\n"
          "CFS throttling during the run: 29 of 30 periods, 2.25 s throttled\n"
          "CPU time stolen by the hypervisor: 0.12 s\n"
          "Throttled: yes. why\n");
}

TEST_CASE("the gauges of a fixed result: both clocks per cipher, block size and threads") {
    auto families = cipher_metrics_of(json::parse(kFixedCipherResult));
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families) ==
          "hostprobe_cipher_throughput_bytes_per_second{cipher=aes-128-gcm,block_bytes=16,"
          "threads=2,clock=wall,} 32000.5\n"
          "hostprobe_cipher_throughput_bytes_per_second{cipher=aes-128-gcm,block_bytes=16,"
          "threads=2,clock=cpu,} 64000\n"
          "hostprobe_cipher_throughput_bytes_per_second{cipher=aes-128-ctr,block_bytes=8192,"
          "threads=2,clock=wall,} 9000\n"
          "hostprobe_cipher_throughput_bytes_per_second{cipher=aes-128-ctr,block_bytes=8192,"
          "threads=2,clock=cpu,} 9500.25\n"
          "hostprobe_cipher_last_run_timestamp_seconds{} 1700000000\n");
}

TEST_CASE("results the old code wrote still parse: a cancelled run and the gauges' fields alone") {
    // A run stopped before its first cell, as the code before the typed result wrote it.
    const json cancelled = json::parse(R"({"measurements": [], "threads": 1,
        "seconds_per_measurement": 60.0, "mode": "stream", "decrypt": false, "throttling": null,
        "steal_seconds": null, "wall_to_cpu_ratio": 1.0, "throttled": false,
        "explanation": "e", "openssl_version": "OpenSSL 3.0.11 19 Sep 2023",
        "cpu_budget": {"cores": 2.0, "workers": 2, "visible_cpus": 2, "source": "cpus"},
        "partial": true})");
    const auto parsed = cancelled.get<CipherResult>();
    CHECK(parsed.partial);
    CHECK_FALSE(parsed.throttling);
    CHECK_FALSE(parsed.steal_seconds);
    CHECK(json(parsed) == cancelled);
    auto families = cipher_metrics_of(cancelled);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families) ==
          "hostprobe_cipher_last_run_timestamp_seconds{} 1700000000\n");

    // What the old gauges read, and nothing else: they were made from it, so they still are.
    const json smallest = json::parse(R"({"measurements": [{"cipher": "chacha20",
        "block_bytes": 64, "threads": 1, "bytes_per_second": 5.0, "cpu_bytes_per_second": 6.0}]})");
    families = cipher_metrics_of(smallest);
    REQUIRE(families.ok());
    CHECK(testing::families_text(*families) ==
          "hostprobe_cipher_throughput_bytes_per_second{cipher=chacha20,block_bytes=64,"
          "threads=1,clock=wall,} 5\n"
          "hostprobe_cipher_throughput_bytes_per_second{cipher=chacha20,block_bytes=64,"
          "threads=1,clock=cpu,} 6\n"
          "hostprobe_cipher_last_run_timestamp_seconds{} 1700000000\n");
}

TEST_CASE("a damaged cipher result gives a parse error, never an exception or garbage gauges") {
    const auto cell = [](const char* key, const json& value) {
        json result = json::parse(kFixedCipherResult);
        result["measurements"][0][key] = value;
        return result;
    };
    const auto top = [](const char* key, const json& value) {
        json result = json::parse(kFixedCipherResult);
        result[key] = value;
        return result;
    };
    json without_rate = json::parse(kFixedCipherResult);
    without_rate["measurements"][1].erase("cpu_bytes_per_second");
    const std::vector<json> damaged = {
        json(nullptr),
        json(5),
        json::object(),
        top("measurements", 5),
        top("measurements", json::object()),
        top("measurements", json::array({5})),
        without_rate,
        cell("block_bytes", -1),
        cell("block_bytes", 16.5),
        cell("threads", 1e300),
        cell("threads", "2"),
        cell("cipher", 7),
        cell("bytes_per_second", "fast"),
        cell("bytes_per_second", true),
        cell("cpu_bytes_per_second", nullptr),
        cell("ops", -3),
        cell("repetitions", json{{"count", 2}}),
        top("throttling",
            json{{"periods", -1}, {"throttled_periods", 0}, {"throttled_seconds", 0}}),
        top("steal_seconds", "none"),
        top("mode", "turbo"),
        top("threads", 1e300),
        top("partial", "no"),
        top("cpu_budget", json{{"cores", 1}}),
    };
    for (const auto& result : damaged) {
        CAPTURE(result.dump());
        Result<std::vector<prometheus::MetricFamily>> families =
            std::vector<prometheus::MetricFamily>{};
        CHECK_NOTHROW(families = cipher_metrics_of(result));
        REQUIRE_FALSE(families.ok());
        CHECK(families.error().code == ErrorCode::parse_error);
        CHECK(families.error().message.rfind("cipher result does not parse: ", 0) == 0);
    }
}
