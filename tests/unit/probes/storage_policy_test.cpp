// Where storage probes may write: allowlist, relative paths, "..", symlink escapes, space.
#include "probes/storage/storage_policy.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

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
    CHECK(escape.error().message.find("resolves to") != std::string::npos);
    // A prefix that is not a parent: /x/allowed2 is not inside /x/allowed.
    tree.mkdir("allowed2");
    CHECK(code_of(policy, tree.root() + "/allowed2") == ErrorCode::forbidden);
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
}

TEST_CASE("test files: O_EXCL, removed with their owner, stale ones swept") {
    TempTree tree;
    auto directory = DirectoryHandle::open(tree.root());
    REQUIRE(directory.ok());
    {
        TestFiles files(*directory);
        auto fd = files.create_file(test_file_name("run1", "0"), false);
        REQUIRE(fd.ok());
        ::close(*fd);
        CHECK_FALSE(files.create_file(test_file_name("run1", "0"), false).ok());  // never overwrite
        auto sub = files.create_directory(test_file_name("run1", "files"));
        REQUIRE(sub.ok());
        ::close(*sub);
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
