#include "app/unwritten_pages.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

TEST_CASE("linker tables: the read-only segments before the first code, less shared pages") {
    const std::vector<LoadedSegment> segments = {
        {{0x0, 0x3800}, false, false},     // headers, hash, symbols, names, relocations
        {{0x3800, 0x9000}, false, true},   // code, its first page shared with the tables' last
        {{0x9000, 0xc800}, false, false},  // read-only data: read by the code, not a table
        {{0xc800, 0xf000}, true, false},   // data
    };
    CHECK(linker_table_pages(segments, {}, kPage) == std::vector<AddressRange>{{0x0, 0x3000}});
    // RELRO or a writable segment over a table page cuts it out.
    CHECK(linker_table_pages(segments, {{0x1800, 0x1900}}, kPage) ==
          std::vector<AddressRange>{{0x0, 0x1000}, {0x2000, 0x3000}});
    // Tables in the code's own segment (no -z separate-code), or an object without code: none.
    CHECK(linker_table_pages({{{0x0, 0x9000}, false, true}, {{0x9000, 0xc000}, false, false}}, {},
                             kPage)
              .empty());
    CHECK(linker_table_pages({{{0x0, 0x4000}, false, false}}, {}, kPage).empty());
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

TEST_CASE("functions bound after the linker tables were dropped still bind, and compute") {
    // The test binary is bound lazily: the first call of each function below searches the tables
    // just dropped, which fault back in. (Functions this file calls nowhere else.)
    const std::size_t released = release_linker_tables();
#if defined(__x86_64__)
    // Debian's x86-64 objects are linked with -z separate-code: their tables have segments.
    CHECK(released > 0);
    CHECK_FALSE(linker_table_pages_of_loaded_objects().empty());
#endif
    CHECK(::strverscmp("libfoo-1.9", "libfoo-1.10") < 0);
    std::div_t quotient = std::div(17, 5);
    CHECK(quotient.quot == 3);
    CHECK(quotient.rem == 2);
    CHECK(release_linker_tables() == released);  // the same pages, every time
}

TEST_CASE("the linker tables lie inside the unwritten pages of the loaded objects") {
    const auto tables = linker_table_pages_of_loaded_objects();
    const auto unwritten = unwritten_pages_of_loaded_objects();
    for (const auto& table : tables) {
        const bool inside = std::any_of(unwritten.begin(), unwritten.end(), [&](const auto& page) {
            return page.begin <= table.begin && table.end <= page.end;
        });
        CHECK(inside);
    }
}
