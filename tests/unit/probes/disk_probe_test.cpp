// The disk and files probes on small files: fio's fields, counts that add up, files removed
// after success, cancellation and failure (ENOSPC on a tiny tmpfs when the test may mount one).
#include "probes/disk/disk_probe.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mount.h>

#include <filesystem>
#include <numeric>

#include "core/unique_fd.hpp"
#include "probes/disk/disk_job.hpp"
#include "probes/files/files_probe.hpp"
#include "probes/storage/test_files.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using hostprobe::testing::TempTree;
using nlohmann::json;

namespace {

struct DiskHarness {
    TempTree tree;
    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    host::HostFacts facts{host::collect_host_facts(root)};
    StoragePolicy policy = [this] {
        StoragePolicy p;
        p.allowed_dirs = resolve_allowed_dirs({tree.root()}).value();
        return p;
    }();
    std::stop_source stop;
    std::function<void(double)> on_progress = [](double) {};

    Result<runs::ProbeOutcome> run(const runs::Probe& probe, json input) {
        input["directory"] = tree.root();
        auto params = probe.params().normalize(input);
        REQUIRE_MESSAGE(params.ok(), params.error().message);
        if (auto checked = probe.check(*params); !checked) return checked.error();
        const runs::ProbeContext context{root, facts, stop.get_token(), on_progress, "test1"};
        return probe.run(context, *params);
    }
    bool directory_empty() const { return std::filesystem::is_empty(tree.root()); }
};

// One disk job on a fresh file, its gate open from the start: it measures once laid out.
DiskJobResult run_one_job(const TempTree& scratch, const DiskJobOptions& options) {
    const std::string path = scratch.root() + "/job";
    const core::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    REQUIRE(fd.valid());
    StartGate gate(1);
    gate.start_ns = steady_now_ns();
    gate.deadline_ns = gate.start_ns + int64_t{60'000'000'000};
    gate.go.count_down();
    DiskProgress progress;
    SecondLatencies seconds(1);
    std::stop_source stop;
    return run_disk_job(options, fd.get(), gate, progress, {seconds, 0}, stop.get_token());
}

// The per-second p99 of `direction` against the run: one per iops_series entry, null where
// nothing completed at all, and never outside the run's own latencies (give or take the bucket
// the histogram reports, <1/64 wide).
void check_p99_series(const json& result, const char* direction) {
    INFO(direction);
    const json& series = result[direction].at("clat_p99_series_ns");
    const json& iops = result["iops_series"];
    const json& clat = result[direction]["clat_ns"];
    REQUIRE(series.size() == iops.size());
    size_t with_p99 = 0;
    for (size_t second = 0; second < series.size(); ++second) {
        if (iops[second] == 0) CHECK(series[second].is_null());
        if (series[second].is_null()) continue;
        ++with_p99;
        const auto p99 = series[second].get<uint64_t>();
        CHECK(p99 > 0);
        CHECK(p99 >= clat["min"].get<uint64_t>() * 63 / 64);
        CHECK(p99 <= clat["max"].get<uint64_t>() * 65 / 64 + 1);
    }
    CHECK((with_p99 > 0) == (clat["N"].get<uint64_t>() > 0));
    // All in one second: that second's p99 is the run's.
    if (series.size() == 1 && with_p99 == 1) CHECK(series[0] == clat["percentile"]["99.000000"]);
}

uint64_t sum(const json& series) {
    uint64_t total = 0;
    for (const auto& value : series)
        total += value.get<uint64_t>();
    return total;
}

}  // namespace

TEST_CASE("one pass of each pattern: counts, bytes and histograms add up; files are removed") {
    for (const char* rw : {"randread", "randwrite", "read", "write", "randrw"}) {
        INFO(rw);
        DiskHarness harness;
        const DiskProbe probe({.storage = harness.policy});
        auto outcome = harness.run(probe, {{"rw", rw},
                                           {"bs", "4k"},
                                           {"size", "1m"},
                                           {"numjobs", 2},
                                           {"time_based", false},
                                           {"direct", false}});
        REQUIRE_MESSAGE(outcome.ok(), outcome.error().message);
        const json& result = outcome->result;
        const uint64_t reads = result["read"]["total_ios"], writes = result["write"]["total_ios"];
        CHECK(reads + writes == 2 * 256);  // one pass: size / bs per job
        for (const char* direction : {"read", "write"}) {
            const json& side = result[direction];
            CHECK(side["io_bytes"] == side["total_ios"].get<uint64_t>() * 4096);
            uint64_t binned = 0;
            for (const auto& [value, count] : side["clat_ns"]["bins"].items())
                binned += count.get<uint64_t>();
            CHECK(binned == side["total_ios"]);
            if (side["total_ios"] == 0) continue;
            CHECK(side["clat_ns"]["min"].get<uint64_t>() <=
                  side["clat_ns"]["percentile"]["50.000000"].get<uint64_t>());
            CHECK(side["clat_ns"]["percentile"]["50.000000"].get<uint64_t>() <=
                  side["clat_ns"]["percentile"]["99.990000"].get<uint64_t>());
            CHECK(side["clat_ns"]["percentile"].size() == 17);
            CHECK(side["iops"].get<double>() > 0);
            CHECK(side["bw_bytes"].get<uint64_t>() > 0);
        }
        check_p99_series(result, "read");
        check_p99_series(result, "write");
        if (std::string(rw) == "randrw") CHECK((reads > 0 && writes > 0));
        CHECK(sum(result["iops_series"]) == reads + writes);
        CHECK(result["job_options"]["bs"] == "4k");
        CHECK(result["job_options"]["size"] == "1m");
        CHECK(outcome->text_report.find("clat percentiles (usec):") != std::string::npos);
        CHECK(harness.directory_empty());
    }
}

TEST_CASE("time based with direct I/O and a ramp, where the filesystem allows O_DIRECT") {
    DiskHarness harness;
    const DiskProbe probe({.storage = harness.policy});
    auto outcome =
        harness.run(probe, {{"size", "1m"}, {"runtime", 1}, {"ramp_time", 0.2}, {"direct", true}});
    if (!outcome.ok() && outcome.error().message.find("refuses O_DIRECT") != std::string::npos)
        SKIP_TEST(outcome.error().message);
    REQUIRE_MESSAGE(outcome.ok(), outcome.error().message);
    CHECK(outcome->result["read"]["total_ios"].get<uint64_t>() > 0);
    CHECK(outcome->result["runtime_seconds"].get<double>() > 0.5);
    CHECK(outcome->result["runtime_seconds"].get<double>() <= 1.01);
    check_p99_series(outcome->result, "read");
    // randread: a p99 for every second with I/Os, none for writes.
    const json& series = outcome->result["read"]["clat_p99_series_ns"];
    for (size_t second = 0; second < series.size(); ++second)
        CHECK(series[second].is_null() == (outcome->result["iops_series"][second] == 0));
    for (const auto& p99 : outcome->result["write"]["clat_p99_series_ns"])
        CHECK(p99.is_null());
    CHECK(harness.directory_empty());
}

TEST_CASE("io_uring keeps iodepth in flight") {
    if (!io_uring_supported()) SKIP_TEST("built without liburing");
    // The job itself: iodepth 8 is 8 I/Os submitted at once, not 8 one after the other.
    TempTree scratch;
    DiskJobOptions options;
    options.rw = RwPattern::randrw;
    options.block = 4096;
    options.file_size = 1 << 20;
    options.time_based = false;
    options.direct = false;
    options.engine = IoEngineKind::io_uring;
    options.iodepth = 8;
    const DiskJobResult job = run_one_job(scratch, options);
    if (job.error.find("io_uring is not available") != std::string::npos) SKIP_TEST(job.error);
    REQUIRE_MESSAGE(job.error.empty(), job.error);
    CHECK(job.max_in_flight == 8);
    CHECK(job.read.ios + job.write.ios == 256);

    // And through the probe, as a run asks for it.
    DiskHarness harness;
    const DiskProbe probe({.storage = harness.policy});
    auto outcome = harness.run(probe, {{"rw", "randrw"},
                                       {"bs", "4k"},
                                       {"size", "1m"},
                                       {"time_based", false},
                                       {"direct", false},
                                       {"ioengine", "io_uring"},
                                       {"iodepth", 8}});
    REQUIRE_MESSAGE(outcome.ok(), outcome.error().message);
    CHECK(outcome->result["read"]["total_ios"].get<uint64_t>() +
              outcome->result["write"]["total_ios"].get<uint64_t>() ==
          256);
    CHECK(harness.directory_empty());
}

TEST_CASE("a stop request ends the run with a partial result and no files") {
    DiskHarness harness;
    const DiskProbe probe({.storage = harness.policy});
    // Stop as soon as the measured part begins (after the 10% of layout progress).
    harness.on_progress = [&](double fraction) {
        if (fraction > 0.1) harness.stop.request_stop();
    };
    auto outcome = harness.run(probe, {{"size", "1m"}, {"runtime", 600}, {"direct", false}});
    REQUIRE_MESSAGE(outcome.ok(), outcome.error().message);
    CHECK(outcome->partial);
    CHECK(outcome->result["partial"] == true);
    CHECK(outcome->result["runtime_seconds"].get<double>() < 60);
    CHECK(harness.directory_empty());
}

TEST_CASE("refusals before anything is written") {
    DiskHarness harness;
    const DiskProbe probe({.storage = harness.policy});
    auto not_blocks = harness.run(probe, {{"bs", "16k"}, {"size", "24k"}});
    REQUIRE_FALSE(not_blocks.ok());
    CHECK(not_blocks.error().message.find("whole number of blocks") != std::string::npos);
    auto too_big = harness.run(probe, {{"size", "1g"}, {"numjobs", 8}});  // 8 GiB > 4 GiB limit
    REQUIRE_FALSE(too_big.ok());
    CHECK(too_big.error().message.find("--disk-max-bytes") != std::string::npos);
    auto buffers = harness.run(probe, {{"bs", "16m"}, {"size", "16m"}, {"numjobs", 8}});
    REQUIRE_FALSE(buffers.ok());
    CHECK(buffers.error().message.find("buffers") != std::string::npos);
    harness.policy.free_space = [](const std::string&) -> Result<uint64_t> {
        return uint64_t{10} << 20;
    };
    const DiskProbe short_of_space({.storage = harness.policy});
    auto no_room = harness.run(short_of_space, {{"size", "16m"}});
    REQUIRE_FALSE(no_room.ok());
    CHECK(no_room.error().message.find("MiB free") != std::string::npos);
    StoragePolicy disabled;
    const DiskProbe nowhere({.storage = disabled});
    auto refused = harness.run(nowhere, {});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::forbidden);
    CHECK(harness.directory_empty());
}

// (Kernels before 6.6 also refuse O_DIRECT on tmpfs; TestFiles turns that EINVAL into advice to
// set "direct": false, which newer kernels no longer need.)
TEST_CASE("ENOSPC on a small tmpfs fails the run clearly and leaves no file") {
    TempTree mountpoint;
    if (::mount("tmpfs", mountpoint.root().c_str(), "tmpfs", 0, "size=2m") != 0)
        SKIP_TEST("cannot mount a tmpfs here (needs root)");
    struct Unmount {
        std::string path;
        ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
    } unmount{mountpoint.root()};
    DiskHarness harness;
    harness.policy.allowed_dirs = {mountpoint.root()};
    // Pretend there is room so the run starts; the filesystem itself then says ENOSPC.
    harness.policy.free_space = [](const std::string&) -> Result<uint64_t> {
        return uint64_t{1} << 30;
    };
    const DiskProbe probe({.storage = harness.policy});
    runs::ProbeContext context{harness.root, harness.facts, harness.stop.get_token(), [](double) {},
                               "enospc"};
    auto params = probe.params().normalize(
        {{"directory", mountpoint.root()}, {"size", "8m"}, {"direct", false}});
    REQUIRE(params.ok());
    auto outcome = probe.run(context, *params);
    REQUIRE_FALSE(outcome.ok());
    CHECK(outcome.error().message.find("no space left on the device") != std::string::npos);
    CHECK(std::filesystem::is_empty(mountpoint.root()));
}

TEST_CASE("files: every operation on every file, latency percentiles, nothing left behind") {
    DiskHarness harness;
    const FilesProbe probe({.storage = harness.policy});
    auto outcome = harness.run(probe, {{"files", 60}, {"file_size", "1k"}, {"threads", 2}});
    REQUIRE_MESSAGE(outcome.ok(), outcome.error().message);
    const json& ops = outcome->result["ops"];
    for (const auto& name : FilesProbe::operations()) {
        INFO(name);
        CHECK(ops[name]["ops"] == 60);
        CHECK(ops[name]["ops_per_second"].get<double>() > 0);
        CHECK(ops[name]["lat_ns"]["percentile"]["99.000000"].get<uint64_t>() > 0);
    }
    CHECK(outcome->text_report.find("unlink") != std::string::npos);
    CHECK(harness.directory_empty());
    const auto metrics = probe.result_metrics(outcome->result, 0);
    REQUIRE(metrics.ok());
    CHECK(metrics->size() == 2);
}

TEST_CASE("disk metrics: one series per direction the pattern uses, with quantiles") {
    DiskHarness harness;
    const DiskProbe probe({.storage = harness.policy});
    auto outcome = harness.run(probe, {{"rw", "randwrite"},
                                       {"bs", "4k"},
                                       {"size", "256k"},
                                       {"time_based", false},
                                       {"direct", false}});
    REQUIRE(outcome.ok());
    const auto built = probe.result_metrics(outcome->result, 0);
    REQUIRE(built.ok());
    const auto& families = *built;
    REQUIRE(families.size() == 4);
    CHECK(families[0].name == "hostprobe_disk_iops");
    CHECK(families[0].metric.size() == 1);  // write only
    REQUIRE(families[2].metric.size() == 1);
    CHECK(families[2].type == prometheus::MetricType::Summary);
    CHECK(families[2].metric[0].summary.quantile.size() == 4);  // 0.5, 0.9, 0.99, 0.999
    CHECK(families[2].metric[0].summary.sample_count == 64);
    // The worst second's p99 is one of the run's latencies: at most its max.
    CHECK(families[3].name == "hostprobe_disk_latency_p99_worst_second_seconds");
    REQUIRE(families[3].metric.size() == 1);
    const double worst = families[3].metric[0].gauge.value;
    CHECK(worst > 0);
    CHECK(worst * 1e9 <= outcome->result["write"]["clat_ns"]["max"].get<double>() * 65 / 64 + 1);
}
