#include "app/serve.hpp"

#include <csignal>
#include <memory>

#include "api/host_api.hpp"
#include "app/signal_watcher.hpp"
#include "core/build_info.hpp"
#include "host/host_facts.hpp"
#include "http/http_server.hpp"
#include "metrics/exposition.hpp"
#include "metrics/host_collector.hpp"

namespace hostprobe::app {

namespace {

host::HostFacts collect(const SysRoot& root) {
    if (root.is_live())
        return host::collect_host_facts(root, host::LiveCpuid(), host::read_live_inputs());
    return host::collect_host_facts(root, host::NoCpuid(), std::nullopt);
}

}  // namespace

size_t http_threads_for(uint32_t workers) {
    return std::clamp<size_t>(static_cast<size_t>(workers) * 4, 4, 32);
}

int run_serve(const ServeConfig& config, Logger& log) {
    const auto started = std::chrono::steady_clock::now();
    const SysRoot root(config.sysroot);
    const host::HostFacts facts = collect(root);
    for (const auto& warning : facts.warnings)
        log.warn(warning);

    metrics::Exposition exposition;
    exposition.add(std::make_shared<metrics::BuildInfoCollector>());
    exposition.add(std::make_shared<metrics::HostCollector>(root, facts));

    const api::HostApiContext context{root, facts, exposition, started};
    auto router = std::make_shared<http::Router>();
    api::add_host_routes(*router, context);
    api::add_index_route(*router);

    http::ServerOptions options;
    options.address = config.listen;
    options.threads =
        config.http_threads ? config.http_threads : http_threads_for(facts.cpu_budget.workers);
    http::HttpServer server(options, router);

    // Before any thread starts, so that only the watcher receives the signals.
    SignalWatcher signals([&](int signal_number) {
        log.info("shutting down", {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});
        server.stop();
    });

    if (auto bound = server.bind(); !bound) {
        log.error(bound.error().message);
        return 1;
    }
    http::ListenAddress actual = config.listen;
    actual.port = server.port();
    log.info("listening", {{"address", actual.to_string()},
                           {"version", kVersion},
                           {"sysroot", root.prefix()},
                           {"cpu_budget_cores", std::to_string(facts.cpu_budget.cores)},
                           {"http_threads", std::to_string(options.threads)}});
    if (auto served = server.serve(); !served) {
        log.error(served.error().message);
        return 1;
    }
    log.info("stopped");
    return 0;
}

}  // namespace hostprobe::app
