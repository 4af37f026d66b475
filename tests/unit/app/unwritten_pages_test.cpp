#include "app/unwritten_pages.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/resident_memory.hpp"

using namespace hostprobe::app;
using hostprobe::testing::resident_code_kib;

namespace {

constexpr std::uintptr_t kPage = 0x1000;

}  // namespace

TEST_CASE("unwritten pages: whole pages of read-only segments, rounded inward") {
    // Code from 0x10010 to 0x13ff0: only its three whole pages.
    const auto pages = unwritten_pages({{{0x10010, 0x13ff0}, false}}, {}, kPage);
    CHECK(pages == std::vector<AddressRange>{{0x11000, 0x13000}});
    // Less than a page: nothing.
    CHECK(unwritten_pages({{{0x10010, 0x10ff0}, false}}, {}, kPage).empty());
}

TEST_CASE("unwritten pages: writable segments and RELRO are never included, nor pages they share") {
    const std::vector<LoadedSegment> segments = {
        {{0x0, 0x4000}, false},     // headers and read-only data
        {{0x4000, 0x9000}, false},  // code
        {{0x9000, 0xc800}, false},  // read-only data
        {{0xc800, 0xf000}, true},   // data, its first page shared with the read-only data's last
    };
    // Relocated at load then made read-only: in the writable segment, and reaching into the
    // code's last page here to show it is cut wherever it lies.
    const std::vector<AddressRange> relro = {{0x8800, 0x8900}};
    const auto pages = unwritten_pages(segments, relro, kPage);
    CHECK(pages == std::vector<AddressRange>{{0x0, 0x8000}, {0x9000, 0xc000}});
    for (const auto& range : pages) {
        CHECK(range.begin % kPage == 0);
        CHECK(range.end % kPage == 0);
    }
}

TEST_CASE("this process's loaded objects have unwritten pages, none writable or in RELRO") {
    const auto pages = unwritten_pages_of_loaded_objects();
    REQUIRE_FALSE(pages.empty());
    // Every range lies in a mapping /proc/self/maps shows without write permission.
    struct Mapping {
        std::uintptr_t begin, end;
        bool writable;
    };
    std::vector<Mapping> mappings;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        Mapping mapping{};
        char permissions[5] = {};
        if (std::sscanf(line.c_str(), "%lx-%lx %4s", &mapping.begin, &mapping.end, permissions) ==
            3) {
            mapping.writable = permissions[1] == 'w';
            mappings.push_back(mapping);
        }
    }
    for (const auto& range : pages) {
        for (const auto& mapping : mappings) {
            const bool overlaps = range.begin < mapping.end && mapping.begin < range.end;
            CHECK_FALSE((overlaps && mapping.writable));
        }
    }
}

TEST_CASE("released code pages come back when they run again, also under running threads") {
    // Threads keep running library code (sorting strings: libstdc++; formatting and parsing
    // numbers: libc) while the pages are dropped many times: what runs faults its pages back in
    // and computes the same. (Not std::regex: compiling one in two threads at once trips
    // ThreadSanitizer on libstdc++'s ctype<char>::narrow cache.)
    std::atomic<bool> stop{false};
    std::atomic<long> wrong{0};
    std::vector<std::thread> workers;
    for (int i = 0; i < 2; ++i)
        workers.emplace_back([&] {
            while (!stop) {
                std::vector<std::string> numbers;
                for (int n = 300; n > 0; --n)
                    numbers.push_back(std::to_string(n));
                std::sort(numbers.begin(), numbers.end());
                char text[32];
                std::snprintf(text, sizeof text, "%.3f", std::strtod("12.3456", nullptr));
                if (numbers.front() != "1" || numbers.back() != "99" ||
                    std::string(text) != "12.346")
                    ++wrong;
            }
        });
    std::size_t released = 0;
    for (int i = 0; i < 50; ++i)
        released += release_unwritten_pages();
    stop = true;
    for (auto& worker : workers)
        worker.join();
    CHECK(released > 0);
    CHECK(wrong == 0);
}

TEST_CASE("releasing unwritten pages lowers this process's resident code") {
    const long before = resident_code_kib();
    release_unwritten_pages();
    const long after = resident_code_kib();
    INFO("resident code before " << before << " KiB, after " << after << " KiB");
    // What runs between the release and the reading comes back, little else (CI's build: 5136
    // KiB before, 3328 after with a regex reading; here the reader is sscanf).
    CHECK(after <= before - 1024);
}
