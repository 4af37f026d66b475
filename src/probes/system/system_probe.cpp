#include "probes/system/system_probe.hpp"

#include <algorithm>

#include "core/strings.hpp"
#include "metrics/family_builder.hpp"
#include "probes/common/series_sampler.hpp"
#include "probes/system/dhrystone.hpp"
#include "probes/system/process_loops_runner.hpp"
#include "probes/system/system_index.hpp"
#include "probes/system/system_measurement.hpp"
#include "probes/system/system_report.hpp"
#include "probes/system/work_directory.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using runs::ParamSpec;
using runs::ParamType;

constexpr const char* kNote =
    "UnixBench 6.0.0's index tests and baselines, run by hostprobe: its own Dhrystone 2.1, "
    "Whetstone, pipe, syscall and file copy loops, and execl, spawn and the shell scripts in a "
    "small C helper as UnixBench runs them in its own. Held to UnixBench 6.0.0 test by test "
    "(bench/system_vs_unixbench.sh); the index is on UnixBench's scale.";

// The largest file pair one copy of a file_copy test writes: 8000 KiB (fstime's -m 8000), twice.
constexpr uint64_t kFileCopyBytesPerCopy = uint64_t{2} * 8000 * 1024;

std::vector<const SystemTestSpec*> selected_tests(const json& selectors) {
    std::vector<const SystemTestSpec*> tests;
    for (const auto& spec : system_test_specs()) {
        for (const auto& selector : selectors) {
            if (selector.get<std::string>() == spec.selector) tests.push_back(&spec);
        }
    }
    return tests;
}

bool selects(const json& selectors, const char* selector) {
    return std::find(selectors.begin(), selectors.end(), selector) != selectors.end();
}

SystemTestResult test_result(const SystemMeasurement& m) {
    SystemTestResult test{.name = std::string(m.test->name),
                          .title = std::string(m.test->title),
                          .unit = std::string(m.test->unit),
                          .copies = m.copies,
                          .value = m.value,
                          .baseline = m.test->baseline,
                          .index = index_value(m.value, m.test->baseline),
                          .seconds = m.seconds,
                          .valid = m.valid};
    if (m.test->name == "dhrystone") test.dmips = dmips(m.value);
    return test;
}

SystemSkippedTest skipped_test(const SystemTestSpec& test, size_t copies,
                               const std::string& reason) {
    return {std::string(test.name), std::string(test.title), copies, reason};
}

// Why a test cannot run here, if it cannot: no shell, nowhere to write, no room for its files.
// Why a test cannot run here, found before any copy starts.
struct MissingForTests {
    std::optional<std::string> no_shell;
    std::optional<std::string> no_process_loops;
    std::optional<std::string> no_directory;
    std::optional<std::string> no_room;
};

std::optional<std::string> reason_to_skip(const SystemTestSpec& test,
                                          const MissingForTests& missing) {
    const auto& [no_shell, no_process_loops, no_directory, no_room] = missing;
    const bool starts_processes =
        test.selector == "execl" || test.selector == "spawn" || test.selector == "shell";
    if (starts_processes && no_process_loops) return no_process_loops;
    if (test.selector == "shell" && no_shell) return no_shell;
    const bool writes = test.selector == "file_copy" || test.selector == "shell";
    if (writes && no_directory) return no_directory;
    if (test.selector == "file_copy" && no_room) return no_room;
    return std::nullopt;
}

}  // namespace

std::vector<size_t> system_copies(const json& copies_param, const runs::ProbeContext& context) {
    if (!copies_param.is_string()) return copies_param.get<std::vector<size_t>>();
    std::vector<size_t> copies{1};
    if (const size_t workers = context.count_or_workers(copies_param); workers > 1)
        copies.push_back(workers);
    return copies;
}

SystemProbe::SystemProbe(const ProbeSetup& setup)
    : policy_(setup.storage),
      setup_(setup),
      params_({
          ParamSpec{.name = "tests",
                    .type = ParamType::choice_list,
                    .default_value = system_test_selectors(),
                    .description = "tests to run, in UnixBench's order whatever the order given "
                                   "(file_copy is the 1024, 256 and 4096-byte buffer tests; shell "
                                   "the 1 and 8 concurrent scripts)",
                    .choices = system_test_selectors(),
                    .max_items = 16},
          ParamSpec{.name = "copies",
                    .type = ParamType::auto_or_integer_list,
                    .default_value = "auto",
                    .description = "copies of each test run at once, one pass per count; auto is "
                                   "1 and the CPU budget's workers (UnixBench's single and "
                                   "parallel passes)",
                    .min = 1,
                    .max = 64,
                    .max_items = 4},
          ParamSpec{.name = "seconds",
                    .type = ParamType::number,
                    .default_value = 10,
                    .description = "how long each test runs in each pass",
                    .min = 1,
                    .max = 120,
                    .unit = "s"},
          ParamSpec{.name = "directory",
                    .type = ParamType::string,
                    .default_value = "",
                    .description = "where file_copy and shell work: empty is a private directory "
                                   "under $TMPDIR or /tmp; otherwise one inside --disk-dir",
                    .examples = setup.storage.allowed_dirs,
                    .max_length = kMaxDirectoryPathBytes},
      }) {}

Status SystemProbe::check(const json& params) const {
    const bool writes = selects(params["tests"], "file_copy") || selects(params["tests"], "shell");
    if (!writes || params["directory"].get<std::string>().empty()) return Ok{};
    auto opened = open_storage_directory(policy_, params["directory"]);
    if (!opened) return opened.error();
    size_t most_copies = 1;
    if (params["copies"].is_array()) {
        for (const auto& count : params["copies"])
            most_copies = std::max(most_copies, count.get<size_t>());
    }
    return check_space(policy_, *opened, kFileCopyBytesPerCopy * most_copies);
}

double SystemProbe::expected_seconds(const json& params) const {
    const size_t passes = params["copies"].is_array() ? params["copies"].size() : 2;
    return static_cast<double>(selected_tests(params["tests"]).size() * passes) *
           params["seconds"].get<double>();
}

Result<SystemProbe::WorkPlace> SystemProbe::prepare_work_directory(
    const json& params, const std::vector<size_t>& copies, const std::string& run_id) const {
    WorkPlace place;
    const bool copies_files = selects(params["tests"], "file_copy");
    if (!copies_files && !selects(params["tests"], "shell")) return place;
    // Opened once, here; the work directory is made, used and removed relative to it.
    const std::string requested = params["directory"];
    auto parent = requested.empty() ? WorkDirectory::open_private_parent()
                                    : open_storage_directory(policy_, requested);
    if (!parent && !requested.empty()) return parent.error();
    // Without a directory to work in (a read-only root file system, no /tmp volume), the tests
    // that write are skipped with the reason; the others still run.
    if (!parent) {
        place.no_directory = parent.error().message;
        return place;
    }
    // The private directory is bounded like an allowlisted one: the copies' files must fit
    // under --disk-max-bytes and in the free space, or file_copy is skipped.
    if (copies_files) {
        const size_t most_copies = *std::max_element(copies.begin(), copies.end());
        if (auto fits = check_space(policy_, *parent, kFileCopyBytesPerCopy * most_copies); !fits)
            place.no_room = fits.error().message;
    }
    place.opened = parent->path();
    const auto kind = requested.empty() ? WorkDirectory::Kind::private_directory
                                        : WorkDirectory::Kind::in_allowed_directory;
    auto created = WorkDirectory::create(std::move(*parent), run_id, kind);
    if (created) {
        place.directory.emplace(std::move(*created));
    } else {
        place.no_directory = created.error().message;
    }
    return place;
}

Result<SystemResult> SystemProbe::measure(const runs::ProbeContext& context,
                                          const json& params) const {
    const auto tests = selected_tests(params["tests"]);
    SystemResult result{.note = kNote,
                        .copies = system_copies(params["copies"], context),
                        .seconds_per_test = params["seconds"].get<double>(),
                        .cpu_budget = context.host.cpu_budget,
                        .cpu_mitigations_costing_syscalls =
                            host::syscall_costing_mitigations(context.host.cpu_vulnerabilities)};

    auto work = prepare_work_directory(params, result.copies, context.run_id);
    if (!work) return work.error();
    result.directory = work->opened;

    CopyEnvironment environment;
    environment.stop = context.stop;
    environment.owned_children = setup_.owned_children;
    environment.directory_fd = work->directory ? work->directory->fd() : -1;
    environment.directory = work->directory ? work->directory->path() : std::string();
    environment.file_prefix = ".hostprobe-" + context.run_id;
    environment.shell = setup_.shell;
    environment.self_exe = setup_.self_exe;
    environment.process_loops =
        setup_.process_loops.empty() ? process_loops_beside(setup_.self_exe) : setup_.process_loops;
    const MissingForTests missing{shell_unavailable(setup_.shell),
                                  process_loops_unavailable(environment.process_loops),
                                  work->no_directory, work->no_room};

    const size_t total = tests.size() * result.copies.size();
    size_t done = 0;
    const SeriesSources sources(context.root, context.host);
    SeriesSampler sampler(sources, nullptr);
    for (size_t count : result.copies) {
        for (const SystemTestSpec* test : tests) {
            if (context.stop.stop_requested()) {
                result.partial = true;
                break;
            }
            if (auto reason = reason_to_skip(*test, missing)) {
                result.skipped.push_back(skipped_test(*test, count, *reason));
                context.report_progress(static_cast<double>(++done) / static_cast<double>(total));
                continue;
            }
            const SystemMeasurementSpec spec{test, count, result.seconds_per_test, environment};
            sampler.set_phase(std::string(test->name) + "/" + std::to_string(count));
            auto measurement = measure_system_test(spec, [&](double within) {
                context.report_progress((static_cast<double>(done) + within) /
                                        static_cast<double>(total));
            });
            if (!measurement) {
                result.skipped.push_back(skipped_test(*test, count, measurement.error().message));
            } else if (measurement->partial) {
                result.partial = true;
                break;
            } else {
                result.tests.push_back(test_result(*measurement));
            }
            context.report_progress(static_cast<double>(++done) / static_cast<double>(total));
        }
        if (result.partial) break;
    }

    result.index = pass_indexes(result.tests, result.copies);
    result.index_partial = index_is_partial(result.index);
    result.series = sampler.finish();
    return result;
}

std::string SystemProbe::text_report(const SystemResult& result) const {
    return system_report(result);
}

std::vector<prometheus::MetricFamily> SystemProbe::metrics(const SystemResult& result,
                                                           double finished_unix_seconds) const {
    metrics::FamilyBuilder values = metrics::gauge(
        "hostprobe_system_result",
        "Result of each UnixBench-style test of the last completed system run, in its unit.");
    metrics::FamilyBuilder indexes = metrics::gauge(
        "hostprobe_system_index",
        "Index of each test of the last completed system run (UnixBench's baseline = 10).");
    for (const auto& test : result.tests) {
        const std::string copies = std::to_string(test.copies);
        values.add(test.value, {{"test", test.name}, {"copies", copies}, {"unit", test.unit}});
        indexes.add(test.index, {{"test", test.name}, {"copies", copies}});
    }
    metrics::FamilyBuilder scores = metrics::gauge(
        "hostprobe_system_index_score",
        "System Benchmarks Index Score (geometric mean of the indexes) per copy count.");
    for (const auto& pass : result.index) {
        if (pass.score) scores.add(*pass.score, {{"copies", std::to_string(pass.copies)}});
    }
    std::vector<prometheus::MetricFamily> out;
    metrics::append(out, std::move(values));
    metrics::append(out, std::move(indexes));
    metrics::append(out, std::move(scores));
    metrics::append(out, metrics::gauge("hostprobe_system_last_run_timestamp_seconds",
                                        "When the last completed system run finished (Unix time).")
                             .add(finished_unix_seconds));
    return out;
}

}  // namespace hostprobe::probes
