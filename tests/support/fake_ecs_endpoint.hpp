// A local stand-in for the ECS task metadata v4 endpoint: serves fixture documents, or answers
// 500, malformed JSON, or not at all, as a test asks.
#pragma once

#include <httplib.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/paths.hpp"

namespace hostprobe::testing {

inline std::string ecs_fixture(const std::string& name) {
    std::ifstream in(fixtures_dir() + "/ecs/" + name);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

class FakeEcsEndpoint {
  public:
    enum class Mode { serve, error_500, malformed, silent };

    FakeEcsEndpoint(std::string task_json, std::string container_json, Mode mode = Mode::serve)
        : task_(std::move(task_json)), container_(std::move(container_json)), mode_(mode) {
        auto answer = [this](const std::string& body, httplib::Response& response) {
            ++requests_;
            switch (mode_) {
                case Mode::serve: response.set_content(body, "application/json"); break;
                case Mode::error_500: response.status = 500; break;
                case Mode::malformed:
                    response.set_content("{\"TaskARN\": ", "application/json");
                    break;
                case Mode::silent:
                    while (!stopping_)
                        std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    break;
            }
        };
        server_.Get("/v4/abc/task", [this, answer](const httplib::Request&, httplib::Response& r) {
            answer(task_, r);
        });
        server_.Get("/v4/abc", [this, answer](const httplib::Request&, httplib::Response& r) {
            answer(container_, r);
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        // A stop() before the server runs is ignored and would leave the destructor waiting.
        for (int i = 0; i < 5000 && !server_.is_running(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~FakeEcsEndpoint() {
        stopping_ = true;
        server_.stop();
        thread_.join();
    }
    std::string uri() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v4/abc"; }
    int requests() const { return requests_; }

  private:
    std::string task_;
    std::string container_;
    Mode mode_;
    httplib::Server server_;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> requests_{0};
    std::thread thread_;
};

}  // namespace hostprobe::testing
