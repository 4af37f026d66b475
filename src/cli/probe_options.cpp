#include "cli/probe_options.hpp"

#include "cli/bounded_options.hpp"
#include "core/regular_file.hpp"
#include "core/strings.hpp"
#include "core/sysroot.hpp"
#include "core/untrusted_json.hpp"
#include "emf/namespace_name.hpp"
#include "http/url.hpp"

namespace hostprobe::cli {

namespace {

// Params for a few probes are a few hundred bytes three levels deep; these limits leave room.
const JsonLimits kParamsLimits{
    .max_bytes = 1 << 20, .max_depth = kMaxJsonDepth, .max_values = 100'000};

// --disk-dir (repeatable), --disk-max-bytes, --disk-max-runtime.
Result<probes::StoragePolicy> storage_policy(const ParsedOptions& options) {
    probes::StoragePolicy policy;
    std::vector<std::string> dirs;
    for (std::string_view dir : split(options.get("disk-dir"), ',')) {
        if (!trim(dir).empty()) dirs.emplace_back(trim(dir));
    }
    auto resolved = probes::resolve_allowed_dirs(dirs);
    if (!resolved)
        return make_error(ErrorCode::invalid_argument, "--disk-dir: " + resolved.error().message);
    policy.allowed_dirs = *resolved;
    auto max_bytes = parse_byte_size(options.get("disk-max-bytes"));
    if (!max_bytes || *max_bytes == 0) {
        return make_error(ErrorCode::invalid_argument,
                          "--disk-max-bytes must be a size such as 4g");
    }
    policy.max_bytes = *max_bytes;
    auto max_runtime = bounded_value(options, "disk-max-runtime", ValueKind::seconds, 1, 86400);
    if (!max_runtime) return max_runtime.error();
    policy.max_runtime_seconds = *max_runtime;
    return policy;
}

// {"cipher": {...}, "cpu": {}}: a JSON object of objects. `origin` names it in errors.
Result<nlohmann::json> parse_params(const std::string& text, const std::string& origin) {
    auto params = parse_untrusted_json(text, kParamsLimits);
    if (!params)
        return make_error(ErrorCode::invalid_argument, origin + ": " + params.error().message);
    if (!params->is_object())
        return make_error(ErrorCode::invalid_argument, origin + " must hold a JSON object");
    for (const auto& [probe, value] : params->items()) {
        if (!value.is_object()) {
            return make_error(ErrorCode::invalid_argument,
                              origin + ": the params of '" + probe + "' must be an object");
        }
    }
    return params;
}

// A regular file of at most the limit: a directory, a FIFO or /dev/zero is refused before a
// byte of it is read, a huge file by its size (or, one that grows, before more than the limit
// is held).
Result<nlohmann::json> read_params_file(const std::string& path) {
    auto text = core::read_regular_file(path, kParamsLimits.max_bytes);
    if (!text)
        return make_error(ErrorCode::invalid_argument, "cannot read " + text.error().message);
    return parse_params(*text, path);
}

// --params or --params-file (not both); an empty object when neither.
Result<nlohmann::json> probe_params(const ParsedOptions& options) {
    if (options.has("params-file") && options.has("params"))
        return make_error(ErrorCode::invalid_argument, "give --params-file or --params, not both");
    if (options.has("params-file")) {
        auto params = read_params_file(options.get("params-file"));
        if (!params)
            return make_error(ErrorCode::invalid_argument,
                              "--params-file: " + params.error().message);
        return params;
    }
    if (options.has("params")) {
        auto params = parse_params(options.get("params"), "the JSON");
        if (!params)
            return make_error(ErrorCode::invalid_argument, "--params: " + params.error().message);
        return params;
    }
    return nlohmann::json::object();
}

// --ecs-metadata-uri, empty or a valid http URL.
Result<std::string> ecs_metadata_uri(const ParsedOptions& options) {
    const std::string& uri = options.get("ecs-metadata-uri");
    if (uri.empty()) return uri;
    if (auto parsed = http::parse_http_url(uri); !parsed)
        return make_error(ErrorCode::invalid_argument,
                          "--ecs-metadata-uri: " + parsed.error().message);
    return uri;
}

// --price-vcpu-hour and --price-gb-hour.
Result<task::Prices> prices(const ParsedOptions& options) {
    task::Prices result;
    auto vcpu_hour = bounded_value(options, "price-vcpu-hour", ValueKind::dollars, 0, 1000);
    if (!vcpu_hour) return vcpu_hour.error();
    auto gb_hour = bounded_value(options, "price-gb-hour", ValueKind::dollars, 0, 1000);
    if (!gb_hour) return gb_hour.error();
    result.vcpu_hour = *vcpu_hour;
    result.gb_hour = *gb_hour;
    return result;
}

}  // namespace

OptionSpec sysroot_option() {
    return {"sysroot", "DIR", "/", "read /proc and /sys below DIR (a dump of another machine)"};
}

std::vector<OptionSpec> probe_run_options(const std::string& purpose) {
    return {
        {"params-file", "FILE", "", "JSON {\"cipher\": {...}} of the params for " + purpose},
        {"params", "JSON", "", "the same JSON inline (for task definitions without a file)"},
        {"disk-dir", "DIR", "",
         "a directory the disk and files probes may write to (repeatable; the variable takes "
         "a comma-separated list)",
         "HOSTPROBE_DISK_DIRS", true},
        {"disk-max-bytes", "SIZE", "4g", "most bytes of test files one run may create"},
        {"disk-max-runtime", "SECONDS", "600", "longest runtime a disk run may ask for"},
        {"system-shell", "PATH", "/bin/sh",
         "the shell the system probe's shell tests run; empty or missing: they are skipped",
         /*env=*/"", /*repeatable=*/false, /*empty_means_none=*/true},
    };
}

std::vector<OptionSpec> task_options() {
    return {
        {"ecs-metadata-uri", "URL", "", "ECS task metadata v4 endpoint (ECS sets it)",
         "ECS_CONTAINER_METADATA_URI_V4"},
        {"price-vcpu-hour", "DOLLARS", "0.04048",
         "price of one vCPU per hour, for the task's cost"},
        {"price-gb-hour", "DOLLARS", "0.004445", "price of one GiB of memory per hour"},
    };
}

std::vector<OptionSpec> emf_options(const std::string& when) {
    return {{"emf", "", "",
             "write CloudWatch Embedded Metric Format lines to stdout: " + when +
                 " (the awslogs driver turns them into metrics)"},
            {"emf-namespace", "NAME", std::string(emf::kDefaultNamespace),
             "CloudWatch namespace of the --emf metrics"}};
}

Result<std::string> checked_sysroot(const ParsedOptions& options) {
    const std::string& dir = options.get("sysroot");
    if (!SysRoot(dir).is_directory("/")) {
        return make_error(ErrorCode::invalid_argument, "--sysroot " + dir + " is not a directory");
    }
    return dir;
}

Result<SharedProbeOptions> parse_shared_probe_options(const ParsedOptions& options) {
    SharedProbeOptions shared;
    auto sysroot = checked_sysroot(options);
    if (!sysroot) return sysroot.error();
    shared.sysroot = *sysroot;
    auto params = probe_params(options);
    if (!params) return params.error();
    shared.params = *params;
    auto storage = storage_policy(options);
    if (!storage) return storage.error();
    shared.storage = *storage;
    shared.system_shell = options.get("system-shell");
    auto metadata_uri = ecs_metadata_uri(options);
    if (!metadata_uri) return metadata_uri.error();
    shared.ecs_metadata_uri = *metadata_uri;
    auto task_prices = prices(options);
    if (!task_prices) return task_prices.error();
    shared.prices = *task_prices;
    shared.emf = options.is_on("emf");
    auto emf_namespace = emf::parse_namespace(options.get("emf-namespace"));
    if (!emf_namespace)
        return make_error(ErrorCode::invalid_argument,
                          "--emf-namespace: " + emf_namespace.error().message);
    shared.emf_namespace = *emf_namespace;
    return shared;
}

}  // namespace hostprobe::cli
