#include "host/caches.hpp"

#include <doctest/doctest.h>

#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

TEST_CASE("sizes print like util-linux's size_to_human_string") {
    CHECK(human_size(512) == "512 B");
    CHECK(human_size(64 * 1024) == "64 KiB");
    CHECK(human_size(1536 * 1024) == "1.5 MiB");
    CHECK(human_size(3 * 1024 * 1024) == "3 MiB");
    CHECK(human_size(46080ull * 1024) == "45 MiB");
    CHECK(human_size(1023ull * 1024 * 1024 + 1000 * 1024 * 1024ull) == "2 GiB");
    CHECK(human_size(uint64_t{1} << 61) == "2 EiB");
}

TEST_CASE("sysfs cache sizes") {
    CHECK(parse_cache_size("32K\n") == 32768u);
    CHECK(parse_cache_size("6144K") == 6291456u);
    CHECK(parse_cache_size("2M") == 2097152u);
    CHECK(parse_cache_size("512") == 512u);
    CHECK(parse_cache_size("junk") == 0u);
}

TEST_CASE("cache instances come from shared_cpu_map when there is no id") {
    testing::TempTree tree;
    for (int cpu = 0; cpu < 4; ++cpu) {
        const std::string base = "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/";
        tree.write(base + "index0/level", "1\n")
            .write(base + "index0/type", "Data\n")
            .write(base + "index0/size", "32K\n");
        tree.write(base + "index0/shared_cpu_map", cpu < 2 ? "3\n" : "c\n");
        tree.write(base + "index1/level", "3\n")
            .write(base + "index1/type", "Unified\n")
            .write(base + "index1/size", "8192K\n");
        tree.write(base + "index1/shared_cpu_map", "f\n");
    }
    const auto caches = read_caches(SysRoot(tree.root()), {0, 1, 2, 3});
    REQUIRE(caches.size() == 2);
    CHECK(caches[0].name == "L1d");
    CHECK(caches[0].instances == 2);
    CHECK(caches[0].size_bytes == 32768u);
    CHECK(caches[0].total_bytes == 65536u);
    CHECK(caches[1].name == "L3");
    CHECK(caches[1].instances == 1);
}
