#include "cli/cli.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "app/serve.hpp"
#include "cli/bounded_options.hpp"
#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/healthcheck.hpp"
#include "cli/probe_options.hpp"
#include "cli/run_command.hpp"
#include "cli/survey_command.hpp"
#include "core/build_info.hpp"
#include "core/json_text.hpp"
#include "core/regular_file.hpp"
#include "core/strings.hpp"
#include "core/sysroot.hpp"
#include "host/host_facts.hpp"
#include "host/live_rates.hpp"
#include "probes/registry.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"
#include "report/live_text.hpp"
#include "runs/scheduler.hpp"

namespace hostprobe::cli {

namespace {

// A token is a line of text; a certificate chain or key, a few KiB of PEM. Read at most this.
constexpr size_t kMaxTokenFileBytes = 64 * 1024;
constexpr size_t kMaxPemFileBytes = 1024 * 1024;

const char* kTopUsage =
    "Usage: hostprobe <command> [options]\n"
    "\n"
    "hostprobe tells what hardware a container runs on and how fast it really is.\n"
    "\n"
    "Commands:\n"
    "  serve        run the agent: REST API, JSON and Prometheus metrics\n"
    "  cpu          identify the CPU, topology, caches, hypervisor and cgroup limits (like lscpu)\n"
    "  healthcheck  exit 0 when a local agent answers /healthz (for container health checks)\n"
    "  run          run a probe in the foreground (cpu, cipher, disk, files, system): hostprobe "
    "run --help\n"
    "  survey       identify the host, run probes once, print JSON lines and exit (a one-shot "
    "task)\n"
    "\n"
    "Run 'hostprobe <command> --help' for a command's options.\n"
    "  --help       this text\n"
    "  --version    version, revision and OpenSSL version\n";

OptionParser serve_parser() {
    std::vector<OptionSpec> specs = {
        {"listen", "HOST:PORT", "0.0.0.0:9740",
         "address to serve HTTP on; port 0 picks a free one"},
        sysroot_option(),
        {"http-threads", "N", "", "HTTP worker threads (default: 4 per CPU-budget worker, 4..32)"},
        {"queue-size", "N", "16", "runs that may wait in the queue; more get 429"},
        {"history-size", "N", "100", "finished runs kept for GET /v1/runs"},
        {"probe-nice", "N", "10",
         "niceness of the threads that measure (0..19): the HTTP threads and the task's "
         "application come first"},
        {"state-dir", "DIR", "",
         "keep finished runs in DIR/runs.jsonl so that a restart brings them back"},
        {"run-on-start", "PROBES", "", "probes to run once at start, e.g. cpu,cipher"},
        {"schedule", "PROBE=INTERVAL,...", "", "probes to run periodically, e.g. cipher=1h"},
        {"token-file", "FILE", "",
         "a file holding the bearer token that POST and DELETE need (HOSTPROBE_TOKEN may hold "
         "the token itself)"},
        {"token", "TOKEN", "",
         "the token itself; only from the environment (never a flag: ps "
         "shows flags)"},
        {"trusted-peers", "CIDRS", std::string(http::kLoopbackPeers),
         "without a token, POST and DELETE are accepted only from these addresses (empty: "
         "from none)",
         /*env=*/"", /*repeatable=*/false, /*empty_means_none=*/true},
        {"allowed-hosts", "NAMES", "",
         "DNS names (comma-separated, no port) by which trusted peers may address the agent; "
         "a peer that uses any other name needs the token (a guard against DNS rebinding)"},
        {"max-body-bytes", "SIZE", "64k", "largest request body; larger ones get 413"},
        {"max-header-bytes", "SIZE", "16k",
         "largest request header block; larger ones get 431 (the request line is at most 8k)"},
        {"request-timeout", "SECONDS", "5",
         "a request must arrive whole within this long (408), and each write of an answer "
         "finish"},
        {"max-connections", "N", "64",
         "connections served or waiting at once; more wait in the kernel's backlog"},
        {"max-runs-per-minute", "N", "30",
         "runs one client address may start per minute; more get 429 (0: no limit)"},
        {"ecs-stats-interval", "SECONDS", "10",
         "in an ECS task, how often every container's stats are read (GET /task/stats); "
         "scrapes and the page read the last reading"},
        {"tls-cert", "FILE", "", "PEM certificate (chain): serve HTTPS instead of HTTP"},
        {"tls-key", "FILE", "", "PEM private key of --tls-cert"},
        {"auth-reads", "", "",
         "GET endpoints and /metrics need the token (or a trusted peer) "
         "too; /healthz and the page (GET / for a browser, /ui/...) never do"}};
    // After --schedule, as before: the params, storage, shell and task options.
    const auto after_schedule =
        std::find_if(specs.begin(), specs.end(),
                     [](const OptionSpec& spec) { return spec.name == "schedule"; }) +
        1;
    std::vector<OptionSpec> shared = probe_run_options("started and scheduled runs");
    for (auto& spec : task_options())
        shared.push_back(std::move(spec));
    specs.insert(after_schedule, shared.begin(), shared.end());
    for (auto& spec : emf_options("the host at start, every run as it finishes"))
        specs.push_back(std::move(spec));
    return OptionParser("serve", "Run the agent until SIGTERM or SIGINT.", std::move(specs));
}

OptionParser cpu_parser() {
    return OptionParser(
        "cpu", "Print what the CPU is and what this process may use of it.",
        {sysroot_option(), {"json", "", "", "print the JSON of GET /v1/host instead of text"}});
}

OptionParser healthcheck_parser() {
    return OptionParser(
        "healthcheck", "Exit 0 when the agent answers /healthz with 200, else 1.",
        {{"url", "URL", "",
          "URL to check (default: http://127.0.0.1:<port of HOSTPROBE_LISTEN or 9740>/healthz)",
          "HOSTPROBE_HEALTHCHECK_URL"},
         {"timeout", "SECONDS", "2", "give up after this long", "HOSTPROBE_HEALTHCHECK_TIMEOUT"}});
}

// serve's numeric options, each within a sane range.
std::vector<BoundedOption<app::ServeConfig>> serve_bounded_options() {
    using Config = app::ServeConfig;
    return {
        {"http-threads", ValueKind::count, 1, 256,
         [](Config& c, double v) { c.http_threads = static_cast<size_t>(v); }, true},
        {"queue-size", ValueKind::count, 1, 1000,
         [](Config& c, double v) { c.queue_size = static_cast<size_t>(v); }},
        {"history-size", ValueKind::count, 1, 100000,
         [](Config& c, double v) { c.history_size = static_cast<size_t>(v); }},
        {"probe-nice", ValueKind::count, 0, 19,
         [](Config& c, double v) { c.probe_nice = static_cast<int>(v); }},
        {"max-body-bytes", ValueKind::size, 1024, 16 << 20,
         [](Config& c, double v) { c.max_body_bytes = static_cast<size_t>(v); }},
        {"max-header-bytes", ValueKind::size, 1024, 1 << 20,
         [](Config& c, double v) { c.max_header_bytes = static_cast<size_t>(v); }},
        {"request-timeout", ValueKind::count, 1, 300,
         [](Config& c, double v) { c.request_timeout_seconds = static_cast<int>(v); }},
        {"max-connections", ValueKind::count, 1, 10000,
         [](Config& c, double v) { c.max_connections = static_cast<size_t>(v); }},
        {"max-runs-per-minute", ValueKind::count, 0, 100000,
         [](Config& c, double v) { c.max_runs_per_minute = static_cast<size_t>(v); }},
        {"ecs-stats-interval", ValueKind::seconds, 1, 3600,
         [](Config& c, double v) { c.ecs_stats_interval_seconds = v; }},
    };
}

// "a.example,B.example" -> {"a.example", "b.example"}; each a DNS name without a port.
Result<std::vector<std::string>> parse_allowed_hosts(const std::string& text) {
    std::vector<std::string> names;
    for (std::string_view part : split(text, ',')) {
        const std::string name = to_lower(trim(part));
        if (name.empty()) continue;
        const bool valid =
            name.size() <= 253 &&
            name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
        if (!valid)
            return make_error(ErrorCode::invalid_argument,
                              "'" + name +
                                  "' is not a DNS name (letters, digits, '-' and '.'; "
                                  "no port)");
        names.push_back(name);
    }
    return names;
}

// The token from --token-file or HOSTPROBE_TOKEN, the trusted peers, and --auth-reads.
Result<http::AccessPolicy> access_policy(const ParsedOptions& options) {
    http::AccessPolicy policy;
    if (options.source("token").rfind("env ", 0) != 0 && options.has("token"))
        return make_error(ErrorCode::invalid_argument,
                          "--token would show in ps; use --token-file or HOSTPROBE_TOKEN");
    if (options.has("token-file") && options.has("token"))
        return make_error(ErrorCode::invalid_argument,
                          "give --token-file or HOSTPROBE_TOKEN, not both");
    if (options.has("token-file")) {
        auto text = core::read_regular_file(options.get("token-file"), kMaxTokenFileBytes);
        if (!text)
            return make_error(ErrorCode::invalid_argument,
                              "--token-file: cannot read " + text.error().message);
        auto token = parse_bearer_token(*text, "--token-file " + options.get("token-file"));
        if (!token) return token.error();
        policy.token = *token;
    } else if (options.has("token")) {
        auto token = parse_bearer_token(options.get("token"), "HOSTPROBE_TOKEN");
        if (!token) return token.error();
        policy.token = *token;
    }
    auto peers = http::parse_cidr_list(options.get("trusted-peers"));
    if (!peers)
        return make_error(ErrorCode::invalid_argument, "--trusted-peers: " + peers.error().message);
    policy.trusted_peers = *peers;
    policy.trusted_peers_text = options.get("trusted-peers");
    policy.protect_reads = options.is_on("auth-reads");
    auto hosts = parse_allowed_hosts(options.get("allowed-hosts"));
    if (!hosts)
        return make_error(ErrorCode::invalid_argument, "--allowed-hosts: " + hosts.error().message);
    policy.allowed_hosts = *hosts;
    return policy;
}

void take_shared_options(SharedProbeOptions shared, app::ServeConfig& config) {
    config.sysroot = std::move(shared.sysroot);
    config.scheduled_params = std::move(shared.params);
    config.storage = std::move(shared.storage);
    config.system_shell = std::move(shared.system_shell);
    config.ecs_metadata_uri = std::move(shared.ecs_metadata_uri);
    config.prices = shared.prices;
    config.emf = shared.emf;
    config.emf_namespace = std::move(shared.emf_namespace);
}

int run_serve_command(const std::vector<std::string>& args, const EnvironmentLookup& environment) {
    const OptionParser parser = serve_parser();
    const CommandLine command_line = parse_command(parser, args, environment);
    if (!command_line.options) return command_line.exit_code;
    const ParsedOptions* options = &*command_line.options;
    app::ServeConfig config;
    auto listen = http::parse_listen_address(options->get("listen"));
    if (!listen) return usage_error(parser, "--listen: " + listen.error().message);
    config.listen = *listen;
    auto shared = parse_shared_probe_options(*options);
    if (!shared) return usage_error(parser, shared.error().message);
    take_shared_options(std::move(shared).value(), config);
    if (auto bounded = apply_bounded(*options, serve_bounded_options(), config); !bounded)
        return usage_error(parser, bounded.error().message);
    config.state_dir = options->get("state-dir");
    if (options->has("tls-cert") != options->has("tls-key"))
        return usage_error(parser, "--tls-cert and --tls-key go together");
    // Checked here, as regular files of a bounded size, because OpenSSL would wait forever
    // on a FIFO and read /dev/zero to its end.
    for (const char* name : {"tls-cert", "tls-key"}) {
        if (!options->has(name)) continue;
        if (auto pem = core::read_regular_file(options->get(name), kMaxPemFileBytes); !pem)
            return usage_error(parser,
                               std::string("--") + name + ": cannot read " + pem.error().message);
    }
    config.tls_cert_file = options->get("tls-cert");
    config.tls_key_file = options->get("tls-key");
    config.run_on_start = runs::parse_probe_list(options->get("run-on-start"));
    auto schedule = runs::parse_schedule(options->get("schedule"));
    if (!schedule) return usage_error(parser, "--schedule: " + schedule.error().message);
    config.schedule = *schedule;
    auto access = access_policy(*options);
    if (!access) return usage_error(parser, access.error().message);
    config.access = *access;
    if (auto checked =
            app::check_automation(config, probes::builtin_probes({.storage = config.storage}));
        !checked) {
        return usage_error(parser, checked.error().message);
    }
    Logger log(stderr);
    return app::run_serve(config, log);
}

// `hostprobe cpu` is one shot: on the live machine it reads the live sources twice, 200 ms
// apart, for rates; a replayed dump does not move, so it shows the totals of one reading.
std::string cpu_command_live_summary(const SysRoot& root, const host::HostFacts& facts) {
    constexpr auto kCpuCommandInterval = std::chrono::milliseconds(200);
    const auto first = host::read_live(root, facts, std::chrono::steady_clock::now());
    if (!root.is_live()) return report::live_summary(first, std::nullopt);
    std::this_thread::sleep_for(kCpuCommandInterval);
    const auto second = host::read_live(root, facts, std::chrono::steady_clock::now());
    return report::live_summary(second, host::compute_live_rates(first, second));
}

int run_cpu_command(const std::vector<std::string>& args, const EnvironmentLookup& environment) {
    const OptionParser parser = cpu_parser();
    const CommandLine command_line = parse_command(parser, args, environment);
    if (!command_line.options) return command_line.exit_code;
    const ParsedOptions* options = &*command_line.options;
    auto sysroot = checked_sysroot(*options);
    if (!sysroot) return usage_error(parser, sysroot.error().message);
    const SysRoot root(*sysroot);
    const host::HostFacts facts = host::collect_host_facts(root);
    if (options->is_on("json")) {
        std::cout << json_text(report::host_json(facts), 2) << "\n";
    } else {
        std::cout << report::host_text(facts, std::nullopt, cpu_command_live_summary(root, facts));
    }
    return std::cout.good() ? kExitOk : kExitFailure;
}

int run_healthcheck_command(const std::vector<std::string>& args,
                            const EnvironmentLookup& environment) {
    const OptionParser parser = healthcheck_parser();
    const CommandLine command_line = parse_command(parser, args, environment);
    if (!command_line.options) return command_line.exit_code;
    const ParsedOptions* options = &*command_line.options;
    const std::string url_text =
        options->has("url") ? options->get("url") : default_healthcheck_url(environment);
    auto url = parse_http_url(url_text);
    if (!url) return usage_error(parser, "--url: " + url.error().message);
    // More than 0: a timeout of 0 would fail every check.
    auto timeout = bounded_value(*options, "timeout", ValueKind::seconds, 0.001, 300);
    if (!timeout) return usage_error(parser, timeout.error().message);
    if (auto healthy = check_health(*url, *timeout); !healthy) {
        std::fprintf(stderr, "hostprobe healthcheck: unhealthy: %s\n",
                     healthy.error().message.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace

int run(const std::vector<std::string>& args, const EnvironmentLookup& environment) {
    if (args.empty()) {
        std::fprintf(stderr, "hostprobe: a command is needed\n\n%s", kTopUsage);
        return kExitUsage;
    }
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(kTopUsage, stdout);
        return kExitOk;
    }
    if (command == "--version" || command == "version") {
        std::printf("hostprobe %s (revision %s, %s)\n", kVersion, kRevision,
                    OpenSSL_version(OPENSSL_VERSION));
        return kExitOk;
    }
    if (command == "serve") return run_serve_command(rest, environment);
    if (command == "cpu") return run_cpu_command(rest, environment);
    if (command == "healthcheck") return run_healthcheck_command(rest, environment);
    if (command == "run") return run_probe_command(rest, environment);
    if (command == "survey") return run_survey_command(rest, environment);
    std::fprintf(stderr, "hostprobe: unknown command '%s'\n\n%s", command.c_str(), kTopUsage);
    return kExitUsage;
}

}  // namespace hostprobe::cli
