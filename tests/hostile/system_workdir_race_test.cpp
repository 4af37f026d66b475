// Issue 14, item 5, for the system probe: its file_copy and shell tests work in a directory it
// makes inside the one a run names (or in the private temporary directory). A writer there
// swaps a directory of that path for a symlink to a directory outside: the run's parent, as
// fast as it can, while runs start; or the work directory itself, the moment it appears. No
// file may ever appear outside (watched with inotify), every run works inside or is refused,
// and nothing is left behind.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/daemon.hpp"
#include "support/directory_race.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool have_shell() {
    return ::access("/bin/sh", X_OK) == 0;
}

// The system tests that write: file_copy (3 tests), or the shell scripts (2) on odd runs when
// there is a shell. One copy, one second each.
json system_run(int index, const std::string& directory) {
    const char* test = index % 2 == 1 && have_shell() ? "shell" : "file_copy";
    json params = {{"tests", {test}}, {"copies", {1}}, {"seconds", 1}};
    if (!directory.empty()) params["directory"] = directory;
    return {{"probe", "system"}, {"params", params}};
}

size_t tests_in(const json& body) {
    return body["params"]["tests"][0] == "shell" ? 2 : 3;
}

// Every entry below `root` whose name starts with .hostprobe- (the probe's leftovers), except
// the names in `except`.
std::vector<std::string> leftovers(const std::string& root,
                                   const std::vector<std::string>& except) {
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(".hostprobe-", 0) != 0) continue;
        if (std::find(except.begin(), except.end(), name) == except.end())
            found.push_back(entry.path().string());
    }
    return found;
}

// The moment a work directory (.hostprobe-<run>-system...) appears in `directory`, exchanges
// it for a symlink to `outside`: the directory goes on under a name of the writer's
// (hijacked-N), the symlink takes its name.
class WorkDirectoryHijacker {
  public:
    WorkDirectoryHijacker(std::string directory, std::string outside)
        : directory_(std::move(directory)),
          outside_(std::move(outside)),
          inotify_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
        REQUIRE(inotify_ >= 0);
        REQUIRE(::inotify_add_watch(inotify_, directory_.c_str(), IN_CREATE) >= 0);
        thread_ = std::thread([this] { loop(); });
    }
    ~WorkDirectoryHijacker() {
        stop();
        ::close(inotify_);
    }
    WorkDirectoryHijacker(const WorkDirectoryHijacker&) = delete;
    WorkDirectoryHijacker& operator=(const WorkDirectoryHijacker&) = delete;
    void stop() {
        done_ = true;
        if (thread_.joinable()) thread_.join();
    }
    // The names now symlinks out.
    std::vector<std::string> hijacked() {
        stop();
        return hijacked_;
    }

  private:
    void loop() {
        alignas(inotify_event) char buffer[4096];
        while (!done_) {
            pollfd readable{inotify_, POLLIN, 0};
            if (::poll(&readable, 1, 20) <= 0) continue;
            const ssize_t length = ::read(inotify_, buffer, sizeof buffer);
            for (ssize_t at = 0; at < length;) {
                const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
                at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
                const std::string name = event->len > 0 ? event->name : "";
                if ((event->mask & IN_ISDIR) && name.rfind(".hostprobe-", 0) == 0 &&
                    name.find("-system") != std::string::npos)
                    hijack(name);
            }
        }
    }
    void hijack(const std::string& name) {
        const std::string aside = directory_ + "/hijacked-" + std::to_string(hijacked_.size());
        if (::symlink(outside_.c_str(), aside.c_str()) != 0) return;
        const std::string path = directory_ + "/" + name;
        if (::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, aside.c_str(), RENAME_EXCHANGE) == 0) {
            hijacked_.push_back(name);
        } else {
            ::unlink(aside.c_str());
        }
    }

    std::string directory_, outside_;
    int inotify_;
    std::atomic<bool> done_{false};
    std::vector<std::string> hijacked_;
    std::thread thread_;
};

}  // namespace

TEST_CASE("a parent swapped for a symlink out while system runs start: nothing written outside") {
    TempTree allowed_tree, outside;
    allowed_tree.mkdir("sub");
    const std::string allowed = fs::canonical(allowed_tree.root()).string();
    const std::string directory = allowed + "/sub";
    fs::create_directory_symlink(outside.root(), allowed + "/link");
    Daemon daemon({"--disk-dir", allowed, "--max-runs-per-minute", "0"});
    auto client = daemon.client();
    CreationWatch watch({outside.root()});

    Swapper swapper(directory, allowed + "/link");
    // Until 8 runs have worked during the race (a run that finds the directory twice, when it
    // is asked for and when it starts, works; about one in four), at most 200 runs or 90 s.
    int worked = 0, refused_up_front = 0, refused_at_start = 0, index = 0;
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    for (; worked < 8 && index < 200 && std::chrono::steady_clock::now() < deadline; ++index) {
        const json body = system_run(index, directory);
        INFO(index << ": " << body.dump());
        auto answer = client.Post("/v1/runs?wait=60", body.dump(), "application/json");
        REQUIRE(answer);
        INFO(answer->body);
        json reply = json::parse(answer->body);  // not const: a missing key reads as null
        if (answer->status >= 400 && answer->status < 500) {
            CHECK(answer->status == 403);
            CHECK(reply["error"].get<std::string>().find("is a symlink") != std::string::npos);
            ++refused_up_front;
        } else {
            REQUIRE(answer->status == 200);
            if (reply["state"] == "succeeded") {
                // Every test measured, in the directory it opened.
                CHECK(reply["result"]["directory"] == directory);
                CHECK(reply["result"]["skipped"].empty());
                CHECK(reply["result"]["tests"].size() == tests_in(body));
                ++worked;
            } else {
                CHECK(reply["state"] == "failed");
                CHECK(reply["error"].get<std::string>().find("is a symlink") != std::string::npos);
                ++refused_at_start;
            }
        }
        const auto created = watch.created();
        REQUIRE_MESSAGE(created.empty(), "created outside: " << join_names(created));
    }
    swapper.stop();
    MESSAGE(index << " runs: " << worked << " worked inside, " << refused_up_front
                  << " refused with 403, " << refused_at_start << " refused when starting; "
                  << swapper.swaps() << " swaps");
    CHECK(swapper.swaps() > 0);
    CHECK(worked + refused_up_front + refused_at_start == index);
    CHECK(watch.created().empty());
    CHECK(fs::is_empty(outside.root()));
    const auto left = leftovers(allowed, {});
    CHECK_MESSAGE(left.empty(), "left inside: " << join_names(left));
}

TEST_CASE("a work directory swapped for a symlink out the moment it appears: nothing outside") {
    TempTree allowed_tree, outside;
    allowed_tree.mkdir("sub");
    const std::string allowed = fs::canonical(allowed_tree.root()).string();
    std::string watched, requested;
    std::vector<std::string> daemon_args{"--max-runs-per-minute", "0"};
    std::map<std::string, std::string> env;
    SUBCASE("inside --disk-dir") {
        watched = requested = allowed + "/sub";
        daemon_args.insert(daemon_args.end(), {"--disk-dir", allowed});
    }
    SUBCASE("in the private directory, under a $TMPDIR others can write to") {
        watched = allowed + "/sub";
        env["TMPDIR"] = watched;
    }
    CAPTURE(watched);
    Daemon daemon(daemon_args, env);
    auto client = daemon.client();
    CreationWatch watch({outside.root()});
    WorkDirectoryHijacker hijacker(watched, outside.root());

    for (int index = 0; index < (have_shell() ? 2 : 1); ++index) {
        const json body = system_run(index, requested);
        INFO(body.dump());
        auto answer = client.Post("/v1/runs?wait=60", body.dump(), "application/json");
        REQUIRE(answer);
        INFO(answer->body);
        REQUIRE(answer->status == 200);
        const json reply = json::parse(answer->body);
        REQUIRE(reply["state"] == "succeeded");
        // Measured in the directory it made, wherever its name now leads; or, had the swap come
        // before the directory was opened, skipped with the reason.
        const json result = reply.value("result", json::object());
        CHECK(result.value("directory", "") == fs::canonical(watched).string());
        CHECK(result.value("tests", json::array()).size() +
                  result.value("skipped", json::array()).size() ==
              tests_in(body));
        for (const auto& skipped : result.value("skipped", json::array()))
            CHECK(skipped["reason"].get<std::string>().find("just made") != std::string::npos);
        const auto created = watch.created();
        REQUIRE_MESSAGE(created.empty(), "created outside: " << join_names(created));
    }
    const auto hijacked = hijacker.hijacked();
    CHECK(hijacked.size() == (have_shell() ? 2u : 1u));
    CHECK(watch.created().empty());
    CHECK(fs::is_empty(outside.root()));
    // Inside, only the writer's symlinks keep the work directories' names; the directories
    // themselves, under the writer's names, were emptied.
    const auto left = leftovers(allowed, hijacked);
    CHECK_MESSAGE(left.empty(), "left inside: " << join_names(left));
    for (const auto& name : hijacked)
        CHECK(fs::is_symlink(watched + "/" + name));
}
