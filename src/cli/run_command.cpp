#include "cli/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>

#include "app/signal_watcher.hpp"
#include "cli/exit_codes.hpp"
#include "core/json_text.hpp"
#include "core/strings.hpp"
#include "host/host_facts.hpp"
#include "probes/registry.hpp"
#include "runs/run_text.hpp"
#include "runs/runner.hpp"
#include "task/task_state.hpp"

namespace hostprobe::cli {

namespace {

struct RunCommandLine {
    std::string probe;
    bool json = false;
    std::string sysroot = "/";
    std::vector<std::pair<std::string, std::string>> params;
};

std::string usage(const runs::ProbeRegistry& registry) {
    std::string text =
        "Usage: hostprobe run <probe> [--<param> value ...] [--json] [--sysroot DIR]\n\n"
        "Runs a probe in the foreground and prints its report (or, with --json, the run as\n"
        "GET /v1/runs/{id} shows it). Lists are comma separated: --block-sizes 16,8192.\n"
        "Flags may also be spelt with the JSON names' underscores (--block_sizes).\n"
        "Ctrl-C, SIGTERM, SIGHUP or SIGQUIT cancels and prints the partial result; other\n"
        "signals are ignored.\n\n"
        "Options (each also read from its environment variable):\n"
        "  --json                       print the run as JSON\n"
        "                               env HOSTPROBE_JSON\n"
        "  --sysroot DIR                read /proc and /sys below DIR\n"
        "                               env HOSTPROBE_SYSROOT\n\nProbes:\n";
    for (const auto& probe : registry.probes()) {
        text += "  " + probe->name() + ": " + probe->description() + "\n";
        for (const auto& spec : probe->params().specs()) {
            std::string flag = spec.name;  // the JSON name; both spellings are accepted
            std::replace(flag.begin(), flag.end(), '_', '-');
            text += "      --" + flag + " (" + runs::to_string(spec.type) + ", default " +
                    spec.default_value.dump() + "): " + spec.description + "\n";
        }
    }
    return text;
}

Result<RunCommandLine> parse(const std::vector<std::string>& args,
                             const EnvironmentLookup& environment) {
    RunCommandLine line;
    if (auto sysroot = environment("HOSTPROBE_SYSROOT")) line.sysroot = *sysroot;
    if (auto json = environment("HOSTPROBE_JSON"))
        line.json = parse_switch_value(*json).value_or(false);
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.rfind("--", 0) != 0) {
            if (!line.probe.empty())
                return make_error(ErrorCode::invalid_argument, "unexpected argument '" + arg + "'");
            line.probe = arg;
            continue;
        }
        std::string name = arg.substr(2);
        std::optional<std::string> value;
        if (size_t equals = name.find('='); equals != std::string::npos) {
            value = name.substr(equals + 1);
            name = name.substr(0, equals);
        }
        if (name == "json") {
            line.json = value ? parse_switch_value(*value).value_or(false) : true;
            continue;
        }
        if (!value) {
            if (i + 1 >= args.size())
                return make_error(ErrorCode::invalid_argument, "--" + name + " needs a value");
            value = args[++i];
        }
        if (name == "sysroot") {
            line.sysroot = *value;
        } else {
            line.params.emplace_back(name, *value);
        }
    }
    if (line.probe.empty())
        return make_error(ErrorCode::invalid_argument, "which probe? e.g. hostprobe run cipher");
    return line;
}

// "\r[##########          ]  50% cipher" on a terminal.
void draw_progress(const std::string& probe, double fraction) {
    const int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(width, ' ');
    std::fprintf(stderr, "\r[%s] %3.0f%% %s", bar.c_str(), fraction * 100, probe.c_str());
    std::fflush(stderr);
}

}  // namespace

int run_probe_command(const std::vector<std::string>& args, const EnvironmentLookup& environment) {
    // The user at the shell names the directory: no allowlist, but the size limits still hold.
    probes::ProbeSetup setup;
    setup.storage.any_directory = true;
    const runs::ProbeRegistry registry = probes::builtin_probes(setup);
    for (const auto& arg : args) {
        if (arg == "--help" || arg == "-h") {
            std::fputs(usage(registry).c_str(), stdout);
            return kExitOk;
        }
    }
    auto line = parse(args, environment);
    if (!line) {
        std::fprintf(stderr, "hostprobe run: %s\n\n%s", line.error().message.c_str(),
                     usage(registry).c_str());
        return kExitUsage;
    }
    const runs::Probe* probe = registry.find(line->probe);
    if (probe == nullptr) {
        std::fprintf(stderr, "hostprobe run: unknown probe '%s'; probes: %s\n", line->probe.c_str(),
                     join(registry.names(), ", ").c_str());
        return kExitUsage;
    }
    auto params = probe->params().normalize_text(line->params);
    if (!params) {
        std::fprintf(stderr, "hostprobe run %s: %s\n", line->probe.c_str(),
                     params.error().message.c_str());
        return kExitUsage;
    }
    const SysRoot root(line->sysroot);
    if (!root.is_directory("/")) {
        std::fprintf(stderr, "hostprobe run: --sysroot %s is not a directory\n",
                     line->sysroot.c_str());
        return kExitUsage;
    }

    // The watcher only raises a flag; the loop below turns it into a cancel within 200 ms.
    // Ctrl-C, SIGTERM, a hangup of the terminal and the like cancel; the rest are noted.
    std::atomic<bool> interrupted{false};
    app::SignalHandlers signal_handlers;
    signal_handlers.shut_down = [&](int) { interrupted = true; };
    signal_handlers.ignored = [](int signal_number) {
        std::fprintf(stderr, "hostprobe run: %s ignored\n",
                     app::signal_name(signal_number).c_str());
    };
    app::SignalWatcher signals(app::SignalContext::foreground, std::move(signal_handlers));

    const task::TaskState facts(host::collect_host_facts(root));
    runs::Runner runner(runs::RunnerOptions{1, 1, 1}, registry,
                        runs::ProbeContextSource{root, facts});
    runner.start();
    auto submitted = runner.submit(line->probe, *params, "cli");
    if (!submitted) {
        std::fprintf(stderr, "hostprobe run %s: %s\n", line->probe.c_str(),
                     submitted.error().message.c_str());
        return kExitUsage;
    }
    const bool terminal = isatty(STDERR_FILENO) == 1;
    runs::Run run = *submitted;
    bool cancelled = false;
    while (!runs::is_finished(run.state)) {
        if (interrupted && !cancelled) {
            cancelled = true;
            (void)runner.cancel(run.id);
        }
        run = runner.wait(run.id, std::chrono::milliseconds(200)).value_or(run);
        if (terminal) draw_progress(line->probe, run.progress);
    }
    if (terminal) std::fputs("\n", stderr);

    if (line->json) {
        std::cout << json_text(runs::to_json(run), 2) << "\n";
    } else {
        std::cout << runs::run_text(run, registry);
    }
    if (run.state == runs::RunState::failed) {
        std::fprintf(stderr, "hostprobe run %s: failed: %s\n", line->probe.c_str(),
                     run.error.c_str());
        return kExitFailure;
    }
    if (run.state == runs::RunState::cancelled) return kExitInterrupted;
    return kExitOk;
}

}  // namespace hostprobe::cli
