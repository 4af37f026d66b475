// Where storage probes may write: allowlist, relative paths, "..", symlink escapes, races,
// answers that do not tell what exists outside, space.
#include "probes/storage/storage_policy.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "core/logger.hpp"
#include "core/strings.hpp"
#include "probes/storage/test_files.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using hostprobe::testing::TempTree;

namespace {
StoragePolicy allowing(const std::string& dir) {
    StoragePolicy policy;
    policy.allowed_dirs = resolve_allowed_dirs({dir}).value();
    return policy;
}
StoragePolicy allowing(const std::string& dir, BeneathMethod method) {
    StoragePolicy policy = allowing(dir);
    policy.open_method = method;
    return policy;
}
ErrorCode code_of(const StoragePolicy& policy, const std::string& path) {
    auto resolved = resolve_directory(policy, path);
    REQUIRE_FALSE(resolved.ok());
    return resolved.error().code;
}
}  // namespace

TEST_CASE("directories inside the allowlist resolve; everything else is forbidden") {
    TempTree tree;
    tree.mkdir("allowed/sub").mkdir("elsewhere");
    const std::string allowed = tree.root() + "/allowed";
    const StoragePolicy policy = allowing(allowed);
    CHECK(*resolve_directory(policy, allowed) == std::filesystem::canonical(allowed).string());
    CHECK(*resolve_directory(policy, allowed + "/sub/") ==
          std::filesystem::canonical(allowed + "/sub").string());
    CHECK(code_of(policy, tree.root() + "/elsewhere") == ErrorCode::forbidden);
    CHECK(code_of(policy, "allowed/sub") == ErrorCode::forbidden);            // relative
    CHECK(code_of(policy, allowed + "/sub/../sub") == ErrorCode::forbidden);  // ".."
    CHECK(code_of(policy, allowed + "/missing") == ErrorCode::not_found);
    CHECK(code_of(policy, "") == ErrorCode::invalid_argument);
    // A symlink inside the allowlist that points out of it.
    std::filesystem::create_directory_symlink(tree.root() + "/elsewhere", allowed + "/escape");
    auto escape = resolve_directory(policy, allowed + "/escape");
    REQUIRE_FALSE(escape.ok());
    CHECK(escape.error().code == ErrorCode::forbidden);
    CHECK(escape.error().message.find("is a symlink") != std::string::npos);
    // A prefix that is not a parent: /x/allowed2 is not inside /x/allowed.
    tree.mkdir("allowed2");
    CHECK(code_of(policy, tree.root() + "/allowed2") == ErrorCode::forbidden);
}

TEST_CASE("outside the allowlist the answer is the same whether the path exists or not") {
    TempTree tree;
    tree.mkdir("allowed").mkdir("exists");
    const StoragePolicy policy = allowing(tree.root() + "/allowed");
    auto existing = resolve_directory(policy, tree.root() + "/exists");
    auto missing = resolve_directory(policy, tree.root() + "/missin");  // same length
    REQUIRE_FALSE(existing.ok());
    REQUIRE_FALSE(missing.ok());
    CHECK(existing.error().code == ErrorCode::forbidden);
    CHECK(missing.error().code == ErrorCode::forbidden);
    std::string masked = missing.error().message;
    masked.replace(masked.find("/missin"), 7, "/exists");
    CHECK(masked == existing.error().message);
    // Nor through a file or a loop outside, which would fail differently if it were opened.
    tree.write("file", "x");
    std::filesystem::create_directory_symlink(tree.root() + "/loop", tree.root() + "/loop");
    CHECK(code_of(policy, tree.root() + "/file/x") == ErrorCode::forbidden);
    CHECK(code_of(policy, tree.root() + "/loop/x") == ErrorCode::forbidden);
    CHECK(code_of(policy, "/proc/self/root" + tree.root() + "/allowed") == ErrorCode::forbidden);
}

TEST_CASE("inside the allowlist: a file or a loop in the path is 400/403, missing is 404") {
    for (BeneathMethod method : {BeneathMethod::walk, BeneathMethod::automatic}) {
        TempTree tree;
        tree.write("allowed/file", "x").mkdir("allowed/dir");
        const std::string allowed = std::filesystem::canonical(tree.root()).string() + "/allowed";
        std::filesystem::create_directory_symlink(allowed + "/loop", allowed + "/loop");
        std::filesystem::create_directory_symlink(allowed + "/dir", allowed + "/inside");
        const StoragePolicy policy = allowing(allowed, method);
        CHECK(code_of(policy, allowed + "/file") == ErrorCode::invalid_argument);
        CHECK(code_of(policy, allowed + "/file/below") == ErrorCode::invalid_argument);
        CHECK(code_of(policy, allowed + "/loop") == ErrorCode::forbidden);
        CHECK(code_of(policy, allowed + "/loop/below") == ErrorCode::forbidden);
        // Even a symlink that stays inside: a writer there could point it anywhere next time.
        CHECK(code_of(policy, allowed + "/inside") == ErrorCode::forbidden);
        auto missing = resolve_directory(policy, allowed + "/dir/missing/deeper");
        REQUIRE_FALSE(missing.ok());
        CHECK(missing.error().code == ErrorCode::not_found);
        CHECK(missing.error().message.find(allowed + "/dir/missing does not exist") !=
              std::string::npos);
    }
}

TEST_CASE("the directory reported is the one opened: the allowed path plus plain components") {
    TempTree tree;
    tree.mkdir("allowed/a/b");
    const std::string allowed = std::filesystem::canonical(tree.root()).string() + "/allowed";
    const StoragePolicy policy = allowing(allowed);
    CHECK(*resolve_directory(policy, "/" + allowed + "//a/./b/") == allowed + "/a/b");
    CHECK(*resolve_directory(policy, allowed + "/.") == allowed);
    auto opened = open_storage_directory(policy, allowed + "/a/b");
    REQUIRE(opened.ok());
    struct stat by_fd {};
    struct stat by_name {};
    REQUIRE(::fstat(opened->fd(), &by_fd) == 0);
    REQUIRE(::stat((allowed + "/a/b").c_str(), &by_name) == 0);
    CHECK(by_fd.st_ino == by_name.st_ino);
    // Bounded input: a NUL (which would cut the path short) and oversized paths are 400.
    CHECK(code_of(policy, allowed + std::string("/a\0/../..", 9)) == ErrorCode::invalid_argument);
    CHECK(code_of(policy, allowed + "/" + std::string(5000, 'a')) == ErrorCode::invalid_argument);
    CHECK(code_of(policy, allowed + "/" + std::string(300, 'a')) == ErrorCode::invalid_argument);
}

TEST_CASE("nested allowed directories; an allowed directory that became a symlink") {
    TempTree tree, outside;
    tree.mkdir("data/a/b/c");
    outside.mkdir("b/c");
    const std::string data = std::filesystem::canonical(tree.root()).string() + "/data";
    StoragePolicy policy;
    policy.allowed_dirs = resolve_allowed_dirs({data, data + "/a/b"}).value();
    CHECK(*resolve_directory(policy, data + "/a/b/c") == data + "/a/b/c");
    // A writer in data replaces a, above the second allowed directory, with a symlink out.
    std::filesystem::rename(data + "/a", data + "/a.moved");
    std::filesystem::create_directory_symlink(outside.root(), data + "/a");
    auto refused = resolve_directory(policy, data + "/a/b/c");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::unavailable);
    CHECK(refused.error().message.find("allowed directory " + data + "/a/b") != std::string::npos);
}

TEST_CASE("a subdirectory swapped for a symlink out while runs open it: no file is made outside") {
    for (BeneathMethod method : {BeneathMethod::walk, BeneathMethod::automatic}) {
        TempTree tree, outside;
        tree.mkdir("allowed/sub/deep");
        outside.mkdir("deep");
        const std::string allowed = std::filesystem::canonical(tree.root()).string() + "/allowed";
        const std::string sub = allowed + "/sub", link = allowed + "/link";
        std::filesystem::create_directory_symlink(outside.root(), link);
        const StoragePolicy policy = allowing(allowed, method);
        std::atomic<bool> done{false};
        std::atomic<int> swaps{0};
        std::thread swapper([&] {
            while (!done) {
                if (::renameat2(AT_FDCWD, sub.c_str(), AT_FDCWD, link.c_str(), RENAME_EXCHANGE) ==
                    0)
                    swaps.fetch_add(1);
            }
        });
        bool escaped = false;
        int created = 0;
        // realpath-then-open by path (the old way) escapes about once in 10,000 opens here.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        for (int i = 0; i < 30000 && !escaped && std::chrono::steady_clock::now() < deadline; ++i) {
            auto directory = open_storage_directory(policy, sub + "/deep");
            if (!directory) {
                CHECK(directory.error().code == ErrorCode::forbidden);
                continue;
            }
            CHECK(directory->path() == sub + "/deep");
            TestFiles files(*directory);
            auto fd = files.create_file(test_file_name("race", std::to_string(i)), false);
            if (fd) {
                fd->reset();
                ++created;
            }
            escaped = !std::filesystem::is_empty(outside.root() + "/deep");
        }
        done = true;
        swapper.join();
        MESSAGE(created << " files created inside, " << swaps.load() << " swaps");
        CHECK(swaps.load() > 0);
        CHECK_FALSE(escaped);
    }
}

TEST_CASE("no allowlist: the daemon refuses, the CLI trusts its user") {
    TempTree tree;
    StoragePolicy none;
    auto refused = resolve_directory(none, tree.root());
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::forbidden);
    CHECK(refused.error().message.find("--disk-dir") != std::string::npos);
    StoragePolicy cli;
    cli.any_directory = true;
    CHECK(resolve_directory(cli, tree.root()).ok());
    CHECK_FALSE(resolve_allowed_dirs({"relative"}).ok());
    CHECK_FALSE(resolve_allowed_dirs({tree.root() + "/missing"}).ok());
}

TEST_CASE("space: at most the limit, and the free space less 10%") {
    TempTree tree;
    StoragePolicy policy = allowing(tree.root());
    policy.max_bytes = 1 << 20;
    auto over_limit = check_space(policy, tree.root(), 2 << 20);
    REQUIRE_FALSE(over_limit.ok());
    CHECK(over_limit.error().message.find("--disk-max-bytes") != std::string::npos);
    policy.max_bytes = uint64_t{1} << 50;
    policy.free_space = [](const std::string&) -> Result<uint64_t> { return uint64_t{100} << 20; };
    CHECK(check_space(policy, tree.root(), 90 << 20).ok());
    auto short_of_space = check_space(policy, tree.root(), 91 << 20);
    REQUIRE_FALSE(short_of_space.ok());
    CHECK(short_of_space.error().code == ErrorCode::invalid_argument);
    CHECK(short_of_space.error().message.find("100 MiB free") != std::string::npos);
    CHECK(statvfs_free_space(tree.root()).value_or(0) > 0);
    // An opened directory is measured by its descriptor (fstatvfs) or the policy's function.
    auto opened = open_storage_directory(policy, std::filesystem::canonical(tree.root()));
    REQUIRE(opened.ok());
    CHECK(check_space(policy, *opened, 90 << 20).ok());
    CHECK_FALSE(check_space(policy, *opened, 91 << 20).ok());
    policy.free_space = nullptr;
    CHECK(check_space(policy, *opened, 1).ok());
    CHECK_FALSE(check_space(policy, *opened, uint64_t{1} << 49).ok());
}

TEST_CASE("test files: O_EXCL, removed with their owner, stale ones swept") {
    TempTree tree;
    auto directory = DirectoryHandle::open(tree.root());
    REQUIRE(directory.ok());
    {
        TestFiles files(*directory);
        auto fd = files.create_file(test_file_name("run1", "0"), false);
        REQUIRE(fd.ok());
        fd->reset();
        CHECK_FALSE(files.create_file(test_file_name("run1", "0"), false).ok());  // never overwrite
        auto sub = files.create_directory(test_file_name("run1", "files"));
        REQUIRE(sub.ok());
        sub->reset();
        tree.write(test_file_name("run1", "files") + "/f0", "x");
        CHECK(std::filesystem::exists(tree.root() + "/.hostprobe-run1-0"));
    }
    CHECK(std::filesystem::is_empty(tree.root()));

    tree.write(".hostprobe-old-0", "left by kill -9")
        .write(".hostprobe-old-files/f1", "x")
        .write("keep.txt", "mine");
    std::FILE* sink = std::tmpfile();
    Logger log(sink);
    CHECK(remove_stale_test_files(tree.root(), log) == 2);
    std::fclose(sink);
    CHECK(std::filesystem::exists(tree.root() + "/keep.txt"));
    CHECK_FALSE(std::filesystem::exists(tree.root() + "/.hostprobe-old-0"));
    CHECK_FALSE(std::filesystem::exists(tree.root() + "/.hostprobe-old-files"));
}

TEST_CASE("sizes like fio's") {
    CHECK(*parse_byte_size("16k") == 16384u);
    CHECK(*parse_byte_size("256m") == 256u << 20);
    CHECK(*parse_byte_size("1G") == 1u << 30);
    CHECK(*parse_byte_size("16KiB") == 16384u);
    CHECK(*parse_byte_size("4096") == 4096u);
    CHECK_FALSE(parse_byte_size("16q").ok());
    CHECK_FALSE(parse_byte_size("").ok());
    CHECK(format_byte_size(16384) == "16k");
    CHECK(format_byte_size(1000) == "1000");
    CHECK(format_byte_size(uint64_t{4} << 30) == "4g");
}

TEST_CASE("sizes: 512b like 4kb, and a size too large for 64 bits is out of range") {
    CHECK(*parse_byte_size("512b") == 512u);
    CHECK(*parse_byte_size("4kb") == 4096u);
    CHECK(*parse_byte_size("2T") == uint64_t{2} << 40);
    CHECK(*parse_byte_size("1p") == uint64_t{1} << 50);
    CHECK(*parse_byte_size("16383p") == uint64_t{16383} << 50);
    const auto huge = parse_byte_size("16384p");
    REQUIRE_FALSE(huge.ok());
    CHECK(huge.error().message.find("out of range") != std::string::npos);
    const auto unknown = parse_byte_size("4q");
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message.find("512b") != std::string::npos);
}
