// Every file the agent reads, as something other than the regular file it expects (issue 26,
// item 2): a directory named runs.jsonl aborted the daemon (std::__ios_failure, exit 134), a
// FIFO as --token-file blocked its start forever and /dev/zero as one filled its memory. Now the
// start-up inputs (the journal, the token file, the params file, the TLS files) end the start
// with exit 1 or 2 and a message naming the file and what it is; a host fact read from a
// sysroot (/proc/cpuinfo, a cgroup file) becomes a warning and the agent goes on.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

// One hostile kind of file: how to make it at a path, and what the agent says of it.
struct HostileKind {
    std::string name;
    std::function<void(const std::string& path)> make;
    std::string said;  // the end of the message naming the path
};

void make_fifo_at(const std::string& path) {
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
}

// A sparse file: huge for a reader, nothing on the disk.
void make_sparse_file_at(const std::string& path, uint64_t bytes) {
    std::ofstream(path).close();
    REQUIRE(::truncate(path.c_str(), static_cast<off_t>(bytes)) == 0);
}

// Directory, FIFO, endless device, dangling symbolic link and a file of `huge` bytes (with
// what the reader says of a file that large).
std::vector<HostileKind> hostile_kinds(uint64_t huge, const std::string& huge_said) {
    return {
        {"a directory", [](const std::string& path) { std::filesystem::create_directory(path); },
         ": a directory, not a regular file"},
        {"a FIFO nobody writes", make_fifo_at, ": a FIFO, not a regular file"},
        {"/dev/zero",
         [](const std::string& path) { std::filesystem::create_symlink("/dev/zero", path); },
         ": a character device, not a regular file"},
        {"/dev/urandom",
         [](const std::string& path) { std::filesystem::create_symlink("/dev/urandom", path); },
         ": a character device, not a regular file"},
        {"a dangling symbolic link",
         [](const std::string& path) { std::filesystem::create_symlink(path + ".missing", path); },
         ": a symbolic link to "},
        {"a huge file", [huge](const std::string& path) { make_sparse_file_at(path, huge); },
         huge_said},
    };
}

// `hostprobe serve` with `args`, expected to stop at once with `code` and `message` in stderr.
void check_start_refused(const std::vector<std::string>& args, int code,
                         const std::string& message) {
    std::vector<std::string> command = {"serve", "--listen", "127.0.0.1:0"};
    command.insert(command.end(), args.begin(), args.end());
    const auto started = run_to_end(binary(), command, {}, 15s);
    CAPTURE(started.errors);
    CHECK(started.status.exited);
    CHECK(started.status.code == code);
    CHECK(started.errors.find(message) != std::string::npos);
    CHECK(started.errors.find("terminate called") == std::string::npos);
}

// A copy of a replayed Fargate machine (cgroup v1, a CPU quota) to spoil.
std::string copy_of_fargate(const TempTree& tree) {
    const std::string root = tree.root() + "/sysroot";
    std::filesystem::copy(sysroot("fargate-e5-2686v4"), root,
                          std::filesystem::copy_options::recursive);
    return root;
}

// `hostprobe cpu --sysroot` on a spoiled copy: it must finish (exit 0) and warn.
void check_host_fact_warned(const std::string& root, const std::string& warning) {
    const auto described = run_to_end(binary(), {"cpu", "--sysroot", root}, {}, 15s);
    CAPTURE(described.errors);
    CAPTURE(described.output);
    CHECK(described.status.exited);
    CHECK(described.status.code == 0);
    CHECK(described.output.find(warning) != std::string::npos);
}

}  // namespace

TEST_CASE(
    "runs.jsonl in --state-dir as a directory, FIFO, device, dangling link or huge file: "
    "exit 1, a message, the file left alone") {
    for (const auto& kind : hostile_kinds((uint64_t{1} << 30) + 1,
                                          ": 1073741825 bytes, more than the 1073741824 a "
                                          "journal may hold; move it away to start")) {
        CAPTURE(kind.name);
        TempTree state;
        const std::string journal = state.root() + "/runs.jsonl";
        kind.make(journal);
        check_start_refused({"--state-dir", state.root()}, 1,
                            "--state-dir: " + journal + kind.said);
        // Left as it was: not replaced by an empty journal.
        const auto left = std::filesystem::symlink_status(journal).type();
        CHECK(left != std::filesystem::file_type::not_found);
        if (left == std::filesystem::file_type::regular)
            CHECK(std::filesystem::file_size(journal) == (uint64_t{1} << 30) + 1);
    }
}

TEST_CASE(
    "--token-file as a directory, FIFO, device, dangling link or huge file: exit 2, a "
    "message") {
    for (const auto& kind :
         hostile_kinds(64 * 1024 + 1, ": 65537 bytes, larger than 65536 bytes")) {
        CAPTURE(kind.name);
        TempTree files;
        const std::string token = files.root() + "/token";
        kind.make(token);
        check_start_refused({"--token-file", token}, 2,
                            "--token-file: cannot read " + token + kind.said);
    }
}

TEST_CASE(
    "--params-file as a directory, FIFO, device, dangling link or huge file: exit 2, a "
    "message") {
    for (const auto& kind :
         hostile_kinds((1 << 20) + 1, ": 1048577 bytes, larger than 1048576 bytes")) {
        CAPTURE(kind.name);
        TempTree files;
        const std::string params = files.root() + "/params.json";
        kind.make(params);
        check_start_refused({"--params-file", params}, 2,
                            "--params-file: cannot read " + params + kind.said);
    }
}

TEST_CASE("--tls-cert and --tls-key as a FIFO or an endless device: exit 2, not a wait forever") {
    TempTree files;
    files.write("key.pem", "-----BEGIN PRIVATE KEY-----\n");
    for (const auto& kind :
         hostile_kinds((1 << 20) + 1, ": 1048577 bytes, larger than 1048576 bytes")) {
        CAPTURE(kind.name);
        TempTree spoiled;
        const std::string cert = spoiled.root() + "/cert.pem";
        kind.make(cert);
        check_start_refused({"--tls-cert", cert, "--tls-key", files.root() + "/key.pem"}, 2,
                            "--tls-cert: cannot read " + cert + kind.said);
    }
}

TEST_CASE(
    "/proc/cpuinfo of a --sysroot as a directory, FIFO, device, dangling link or huge "
    "file: a warning, and the facts still come") {
    for (const auto& kind :
         hostile_kinds((uint64_t{16} << 20) + 1, ": 16777217 bytes, larger than 16777216 bytes")) {
        CAPTURE(kind.name);
        TempTree tree;
        const std::string root = copy_of_fargate(tree);
        std::filesystem::remove(root + "/proc/cpuinfo");
        kind.make(root + "/proc/cpuinfo");
        check_host_fact_warned(root, "cannot read /proc/cpuinfo" + kind.said);
    }
}

TEST_CASE(
    "a cgroup file of a --sysroot as a directory, FIFO, device, dangling link or huge file: "
    "a warning, and the facts still come") {
    const std::string quota = "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us";
    for (const auto& kind :
         hostile_kinds((uint64_t{16} << 20) + 1, ": 16777217 bytes, larger than 16777216 bytes")) {
        CAPTURE(kind.name);
        TempTree tree;
        const std::string root = copy_of_fargate(tree);
        std::filesystem::remove(root + quota);
        kind.make(root + quota);
        check_host_fact_warned(root, quota + kind.said);
    }
}

TEST_CASE("the daemon starts on a --sysroot whose /proc/cpuinfo is a FIFO nobody writes") {
    TempTree tree;
    const std::string root = copy_of_fargate(tree);
    std::filesystem::remove(root + "/proc/cpuinfo");
    make_fifo_at(root + "/proc/cpuinfo");
    Daemon daemon({"--sysroot", root});
    CHECK(daemon.process.errors().find("cannot read /proc/cpuinfo: a FIFO, not a regular file") !=
          std::string::npos);
    auto host = daemon.client().Get("/v1/host");
    REQUIRE(host);
    CHECK(host->status == 200);
}

TEST_CASE("--token-file and --params-file the agent may not read: exit 2, Permission denied") {
    TempTree files;
    files.write("token", "secret-token\n").write("params.json", "{}\n");
    for (const char* name : {"token", "params.json"})
        std::filesystem::permissions(files.root() + "/" + name, std::filesystem::perms::none);
    // Mode 000 stops no read by root: as root, the agent runs as nobody.
    std::string program = binary();
    std::vector<std::string> prefix;
    if (::geteuid() == 0) {
        if (!std::filesystem::exists("/usr/bin/setpriv"))
            SKIP_TEST("running as root without /usr/bin/setpriv to drop privileges");
        std::filesystem::permissions(
            files.root(), std::filesystem::perms::owner_all | std::filesystem::perms::others_exec);
        program = "/usr/bin/setpriv";
        prefix = {"--reuid=65534", "--regid=65534", "--clear-groups", binary()};
    }
    for (const auto& [option, name] :
         {std::pair{"--token-file", "token"}, std::pair{"--params-file", "params.json"}}) {
        CAPTURE(option);
        std::vector<std::string> args = prefix;
        const std::string path = files.root() + "/" + name;
        args.insert(args.end(), {"serve", "--listen", "127.0.0.1:0", option, path});
        const auto refused = run_to_end(program, args, {}, 15s);
        CAPTURE(refused.errors);
        CHECK(refused.status.code == 2);
        CHECK(refused.errors.find(std::string(option) + ": cannot read " + path +
                                  ": Permission denied") != std::string::npos);
    }
}
