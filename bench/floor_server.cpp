// The machine's floor for bench/footprint.sh's /metrics latency: the same HTTP library as the
// agent (cpp-httplib), a thread per connection, TCP_NODELAY, and a constant body of the size
// the agent's /metrics has. No rendering, no routing, no limits: what any server built on this
// library can do on this machine under the same wrk. Built by the bench into its scratch folder.
//   floor_server PORT BODY_BYTES THREADS
#include <httplib.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    if (argc != 4) return 2;
    const int port = std::atoi(argv[1]);
    const std::string body(static_cast<size_t>(std::atol(argv[2])), 'x');
    const int threads = std::atoi(argv[3]);
    httplib::Server server;
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.set_tcp_nodelay(true);
    server.Get("/metrics", [&body](const httplib::Request&, httplib::Response& response) {
        response.set_content(body, "text/plain; version=0.0.4; charset=utf-8");
    });
    server.Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
        response.set_content("ok", "text/plain");
    });
    return server.listen("127.0.0.1", port) ? 0 : 1;
}
