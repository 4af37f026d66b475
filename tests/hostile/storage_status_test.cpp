// Issue 14, item 6: what a storage run's directory answers. Outside the allowlist every path
// gets the same 403, so a caller learns nothing about what exists there; inside it, a file or a
// symlink loop in the path is refused with a message (400, 403), never a 500, and a missing
// directory is a 404 (the caller may know what exists inside).
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/daemon.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Answer {
    int status = 0;
    std::string error;
};

Answer post_run(httplib::Client& client, const std::string& probe, const std::string& directory) {
    const json body = {{"probe", probe}, {"params", {{"directory", directory}}}};
    auto answer = client.Post("/v1/runs", body.dump(), "application/json");
    REQUIRE(answer);
    const json reply = json::parse(answer->body);
    const json error = reply.value("error", json());
    return {answer->status, error.is_string() ? error.get<std::string>() : "(no error)"};
}

// The message with the requested path taken out: what is left must not depend on the path.
std::string shape(std::string message, const std::string& requested) {
    for (size_t at = message.find(requested); at != std::string::npos;
         at = message.find(requested)) {
        message.replace(at, requested.size(), "<directory>");
    }
    return message;
}

}  // namespace

TEST_CASE("outside the allowlist: one 403, the same whether the path exists, is a file or loops") {
    TempTree allowed_tree, outside_tree;
    outside_tree.mkdir("exists").write("file", "x");
    const std::string allowed = fs::canonical(allowed_tree.root()).string();
    const std::string outside = fs::canonical(outside_tree.root()).string();
    fs::create_directory_symlink(outside + "/loop", outside + "/loop");
    Daemon daemon({"--disk-dir", allowed, "--max-runs-per-minute", "0"});
    auto client = daemon.client();
    for (const char* probe : {"disk", "files"}) {
        INFO(probe);
        const Answer reference = post_run(client, probe, outside + "/exists");
        CHECK(reference.status == 403);
        for (const std::string& path :
             {outside + "/missing", outside + "/exists/missing", outside + "/file",
              outside + "/file/below", outside + "/loop", outside + "/loop/below", outside,
              std::string("/etc"), std::string("/proc/self/root") + allowed}) {
            INFO(path);
            const Answer answer = post_run(client, probe, path);
            CHECK(answer.status == reference.status);
            CHECK(shape(answer.error, path) == shape(reference.error, outside + "/exists"));
        }
    }
}

TEST_CASE("inside the allowlist: a file, a loop or a symlink in the path is 400/403, missing 404") {
    TempTree allowed_tree;
    allowed_tree.write("file", "x").mkdir("dir");
    const std::string allowed = fs::canonical(allowed_tree.root()).string();
    fs::create_directory_symlink(allowed + "/loop", allowed + "/loop");
    fs::create_directory_symlink(allowed + "/ping", allowed + "/pong");
    fs::create_directory_symlink(allowed + "/pong", allowed + "/ping");
    fs::create_directory_symlink(allowed + "/dir", allowed + "/inside");
    Daemon daemon({"--disk-dir", allowed, "--max-runs-per-minute", "0"});
    auto client = daemon.client();
    struct Case {
        std::string path;
        int status;
        std::string says;
    };
    const std::vector<Case> cases = {
        {allowed + "/file", 400, allowed + "/file is not a directory"},
        {allowed + "/file/below", 400, allowed + "/file is not a directory"},
        {allowed + "/loop", 403, allowed + "/loop is a symlink"},
        {allowed + "/ping/below", 403, allowed + "/ping is a symlink"},
        {allowed + "/inside", 403, allowed + "/inside is a symlink"},
        {allowed + "/missing", 404, allowed + "/missing does not exist"},
        {allowed + "/dir/missing/deeper", 404, allowed + "/dir/missing does not exist"},
        {allowed + "/dir/" + std::string(300, 'x'), 400, "name too long"},
        {allowed + "/" + std::string(5000, 'x'), 400, "bytes long"},
        {allowed + std::string("/dir\0/../../etc", 15), 400, "NUL"},
        {allowed + "/dir/../../etc", 403, "'..'"},
    };
    for (const char* probe : {"disk", "files"}) {
        for (const auto& [path, status, says] : cases) {
            INFO(probe << " " << path.substr(0, 200));
            const Answer answer = post_run(client, probe, path);
            CHECK(answer.status == status);
            CHECK_MESSAGE(answer.error.find(says) != std::string::npos, answer.error);
        }
    }
    // Named as the allowlist spells it, with redundant slashes and dots: the directory opened.
    const json body = {{"probe", "files"},
                       {"params", {{"directory", "/" + allowed + "//dir/./"}, {"files", 5}}}};
    auto ran = client.Post("/v1/runs?wait=60", body.dump(), "application/json");
    REQUIRE(ran);
    CHECK(ran->status == 200);
    CHECK(json::parse(ran->body)["result"]["directory"] == allowed + "/dir");
}
