#include "probes/files/files_probe.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <thread>

#include "core/unique_fd.hpp"
#include "metrics/family_builder.hpp"
#include "probes/common/start_gate.hpp"
#include "probes/storage/latency_histogram.hpp"
#include "probes/storage/latency_summary.hpp"
#include "probes/storage/storage_params.hpp"
#include "probes/storage/test_files.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;
using runs::ParamSpec;
using runs::ParamType;

enum class Operation { create, stat, read, unlink };

std::string file_name(size_t index) {
    return "f" + std::to_string(index);
}

// One operation on one file; an empty string when it worked.
std::string operate(Operation operation, int directory, size_t index,
                    std::vector<unsigned char>& buffer) {
    const std::string name = file_name(index);
    auto failed = [&](const char* what) {
        return std::string(what) + " " + name + ": " + std::strerror(errno);
    };
    switch (operation) {
        case Operation::create: {
            const core::UniqueFd fd(::openat(directory, name.c_str(),
                                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                             0600));
            if (!fd) return failed("create");
            const ssize_t written = ::write(fd.get(), buffer.data(), buffer.size());
            if (written < 0)
                return errno == ENOSPC ? "no space left on the device while writing " + name
                                       : failed("write");
            return "";
        }
        case Operation::stat: {
            struct stat info {};
            return ::fstatat(directory, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0
                       ? ""
                       : failed("stat");
        }
        case Operation::read: {
            const core::UniqueFd fd(
                ::openat(directory, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
            if (!fd) return failed("open");
            const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
            return got < 0 ? failed("read") : "";
        }
        case Operation::unlink:
            return ::unlinkat(directory, name.c_str(), 0) == 0 ? "" : failed("unlink");
    }
    return "";
}

struct PhaseResult {
    LatencyHistogram latency;
    uint64_t ops = 0;
    std::string error;
};

// Runs one operation over every file, `threads` threads taking every threads-th file.
struct Phase {
    FilesOperation result;
    std::string error;
    bool partial = false;  // the stop token was set
};

Phase run_phase(Operation operation, int directory, size_t files, size_t file_size,
                unsigned threads, std::stop_token stop) {
    StartGate gate(threads);
    std::vector<std::future<PhaseResult>> workers;
    for (unsigned t = 0; t < threads; ++t) {
        workers.push_back(std::async(std::launch::async, [=, &gate]() {
            PhaseResult result;
            std::vector<unsigned char> buffer(file_size);
            RandomFill(t + 1).fill(buffer.data(), buffer.size());
            gate.ready.count_down();
            gate.go.wait();
            for (size_t index = t; index < files && !stop.stop_requested(); index += threads) {
                const int64_t started = steady_now_ns();
                result.error = operate(operation, directory, index, buffer);
                const int64_t finished = steady_now_ns();
                if (!result.error.empty()) break;
                result.latency.record(static_cast<uint64_t>(finished - started));
                ++result.ops;
            }
            return result;
        }));
    }
    gate.ready.wait();
    const int64_t started = steady_now_ns();
    gate.go.count_down();
    LatencyHistogram latency;
    uint64_t ops = 0;
    Phase phase;
    for (auto& worker : workers) {
        PhaseResult result = worker.get();
        if (phase.error.empty()) phase.error = result.error;
        latency.merge(result.latency);
        ops += result.ops;
    }
    const double seconds = static_cast<double>(steady_now_ns() - started) / 1e9;
    phase.partial = stop.stop_requested();
    phase.result = {.ops = ops,
                    .seconds = seconds,
                    .ops_per_second = seconds > 0 ? static_cast<double>(ops) / seconds : 0.0,
                    .latency = summarize(latency)};
    return phase;
}

// Each file costs at least a filesystem block even when it is small.
uint64_t test_file_bytes(const json& params) {
    const uint64_t per_file = std::max<uint64_t>(params["file_size"].get<uint64_t>(), 4096);
    return params["files"].get<uint64_t>() * per_file;
}

}  // namespace

const std::vector<std::string>& FilesProbe::operations() {
    static const std::vector<std::string> names = {"create", "stat", "read", "unlink"};
    return names;
}

FilesProbe::FilesProbe(const ProbeSetup& setup)
    : policy_(setup.storage),
      params_({
          directory_param(setup.storage),
          ParamSpec{.name = "files",
                    .type = ParamType::integer,
                    .default_value = 1000,
                    .description = "how many small files",
                    .min = 1,
                    .max = 1000000},
          ParamSpec{.name = "file_size",
                    .type = ParamType::byte_size,
                    .default_value = 4096,
                    .description = "bytes written to and read from each file",
                    .min = 0,
                    .max = 1 << 20,
                    .unit = "bytes"},
          ParamSpec{.name = "threads",
                    .type = ParamType::auto_or_integer,
                    .default_value = "auto",
                    .description = "threads working at once; auto is the CPU budget's workers",
                    .min = 1,
                    .max = 64},
      }) {}

Status FilesProbe::check(const json& params) const {
    auto directory = open_storage_directory(policy_, params["directory"]);
    if (!directory) return directory.error();
    return check_space(policy_, *directory, test_file_bytes(params));
}

double FilesProbe::expected_seconds(const json& params) const {
    return 4 * params["files"].get<double>() * 0.005;  // a few milliseconds per operation on EFS
}

Result<FilesResult> FilesProbe::measure(const runs::ProbeContext& context,
                                        const json& params) const {
    // Opened once, checked against what was opened, and used only through its descriptor.
    auto directory = open_storage_directory(policy_, params["directory"]);
    if (!directory) return directory.error();
    if (auto fits = check_space(policy_, *directory, test_file_bytes(params)); !fits)
        return fits.error();
    const std::string& used = directory->path();
    TestFiles files(*directory);
    auto working = files.create_directory(test_file_name(context.run_id, "files"));
    if (!working) return working.error();

    FilesResult result;
    result.directory = used;
    result.files = params["files"].get<uint64_t>();
    result.file_size = params["file_size"].get<uint64_t>();
    result.threads = context.count_or_workers(params["threads"]);
    const Operation order[] = {Operation::create, Operation::stat, Operation::read,
                               Operation::unlink};
    for (size_t i = 0; i < 4 && !result.partial; ++i) {
        Phase phase = run_phase(order[i], working->get(), result.files, result.file_size,
                                static_cast<unsigned>(result.threads), context.stop);
        if (!phase.error.empty())
            return make_error(ErrorCode::io_error, phase.error + " (" + used + ")");
        result.ops[operations()[i]] = phase.result;
        result.partial = phase.partial;
        context.report_progress(static_cast<double>(i + 1) / 4);
    }
    files.remove_all();
    return result;
}

std::string FilesProbe::text_report(const FilesResult& result) const {
    return files_report(result);
}

std::vector<prometheus::MetricFamily> FilesProbe::metrics(const FilesResult& result, double) const {
    metrics::FamilyBuilder latency =
        metrics::summary("hostprobe_files_op_latency_seconds",
                         "Latency quantiles of small-file operations, last completed files run.");
    metrics::FamilyBuilder rate =
        metrics::gauge("hostprobe_files_ops_per_second",
                       "Small-file operations per second, last completed files run.");
    for (const auto& [name, operation] : result.ops) {
        const metrics::Labels labels = {{"directory", result.directory}, {"op", name}};
        rate.add(operation.ops_per_second, labels);
        const LatencySummary& lat = operation.latency;
        latency.add_summary(labels, lat.count, lat.mean * static_cast<double>(lat.count) / 1e9,
                            exported_quantiles(lat));
    }
    std::vector<prometheus::MetricFamily> out;
    metrics::append(out, std::move(rate));
    metrics::append(out, std::move(latency));
    return out;
}

}  // namespace hostprobe::probes
