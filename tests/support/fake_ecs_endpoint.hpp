// A local stand-in for the ECS task metadata v4 endpoint: serves fixture documents (the task,
// this container, every container's stats), replaced mid-test with set_documents, or answers
// as a broken or hostile endpoint would: 500, malformed JSON, not at all, a body trickled a
// byte at a time, a connection closed mid-answer, a redirect, a document over the size limit.
#pragma once

#include <httplib.h>

#include <atomic>
#include <fstream>
#include <mutex>
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
    enum class Mode {
        serve,
        error_500,
        malformed,
        silent,
        trickle,
        close_mid_answer,
        redirect,
        huge
    };

    FakeEcsEndpoint(std::string task_json, std::string container_json, Mode mode = Mode::serve,
                    std::string stats_json = "{}")
        : task_(std::move(task_json)),
          container_(std::move(container_json)),
          stats_(std::move(stats_json)),
          mode_(mode) {
        route("/v4/abc/task/stats", &FakeEcsEndpoint::stats_);
        route("/v4/abc/task", &FakeEcsEndpoint::task_);
        route("/v4/abc", &FakeEcsEndpoint::container_);
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
    int stats_requests() const { return stats_requests_; }
    void set_mode(Mode mode) { mode_ = mode; }
    void set_documents(std::string task_json, std::string stats_json) {
        std::lock_guard lock(mutex_);
        task_ = std::move(task_json);
        stats_ = std::move(stats_json);
    }

  private:
    void route(const char* path, std::string FakeEcsEndpoint::*document) {
        server_.Get(path, [this, document, path](const httplib::Request&, httplib::Response& r) {
            ++requests_;
            if (std::string(path).ends_with("/stats")) ++stats_requests_;
            std::string body;
            {
                std::lock_guard lock(mutex_);
                body = this->*document;
            }
            answer(body, r);
        });
    }

    void answer(const std::string& body, httplib::Response& response) {
        switch (mode_.load()) {
            case Mode::serve: response.set_content(body, "application/json"); break;
            case Mode::error_500: response.status = 500; break;
            case Mode::malformed: response.set_content("{\"TaskARN\": ", "application/json"); break;
            case Mode::silent:
                while (!stopping_)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                break;
            case Mode::trickle:  // one byte every 50 ms, for as long as the client listens
                response.set_chunked_content_provider(
                    "application/json", [this](size_t offset, httplib::DataSink& sink) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(50));
                        const char* byte = offset == 0 ? "[" : "0,";
                        return !stopping_ && sink.write(byte, offset == 0 ? 1 : 2);
                    });
                break;
            case Mode::close_mid_answer:  // promises the whole body, sends a tenth of it
                response.set_content_provider(
                    body.size() + 1000, "application/json",
                    [body](size_t offset, size_t, httplib::DataSink& sink) {
                        if (offset > 0) return false;
                        sink.write(body.data(), body.size() / 10);
                        return true;
                    });
                break;
            case Mode::redirect:
                response.status = 302;
                response.set_header("Location", "http://127.0.0.1:1/elsewhere");
                break;
            case Mode::huge: {
                std::string big = "[";
                while (big.size() < (2u << 20))
                    big += "0,";
                big += "0]";
                response.set_content(big, "application/json");
                break;
            }
        }
    }

    std::mutex mutex_;
    std::string task_;
    std::string container_;
    std::string stats_;
    std::atomic<Mode> mode_;
    httplib::Server server_;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> requests_{0};
    std::atomic<int> stats_requests_{0};
    std::thread thread_;
};

}  // namespace hostprobe::testing
