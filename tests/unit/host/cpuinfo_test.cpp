#include "host/cpuinfo.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "host/cpu_types.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

// Seed 002's t4g /proc/cpuinfo block, verbatim.
const char* kGraviton2Block =
    "processor       : 0\n"
    "BogoMIPS        : 243.75\n"
    "Features        : fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
    "asimdrdm "
    "lrcpc dcpop asimddp ssbs\n"
    "CPU implementer : 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant     : 0x3\n"
    "CPU part        : 0xd0c\n"
    "CPU revision    : 1\n";

std::string x86_block(int cpu, const std::string& flags) {
    return "processor\t: " + std::to_string(cpu) +
           "\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 79\n"
           "model name\t: Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz\nstepping\t: 1\n"
           "cpu MHz\t\t: 2300.202\nflags\t\t: " +
           flags + "\nbogomips\t: 460" + std::to_string(cpu) + ".05\npower management:\n\n";
}

}  // namespace

TEST_CASE("x86 processor blocks with the same identity are one type; the first block wins") {
    const std::string text = x86_block(0, "fpu aes") + x86_block(1, "fpu aes lwp");
    const Cpuinfo info = parse_cpuinfo(text, std::nullopt);
    REQUIRE(info.types.size() == 1);
    CHECK(*info.types[0].vendor == "GenuineIntel");
    CHECK(*info.types[0].model == "79");
    CHECK(*info.types[0].flags == "fpu aes");     // CPU 0's flags, as current lscpu
    CHECK(*info.types[0].bogomips == "4600.05");  // "bogomips" is per CPU: the first counts
    CHECK(*info.types[0].mhz == "2300.202");
    CHECK(info.cpu_type.size() == 2);
    CHECK(info.cpu_mhz.at(1) == "2300.202");
}

TEST_CASE("processor blocks for CPUs that are not possible are ignored") {
    const std::string text = x86_block(0, "fpu") + x86_block(7, "fpu");
    CpuSet possible;
    possible.insert(0);
    const Cpuinfo info = parse_cpuinfo(text, possible);
    CHECK(info.cpu_type.count(7) == 0);
    CHECK(info.cpu_type.count(0) == 1);
}

TEST_CASE("CPU numbers no machine has are ignored, and cost nothing (fuzz regression)") {
    // A 999999999 once made every CPU set of the report a billion bits long.
    const std::string text = x86_block(0, "fpu") + x86_block(999999999, "fpu aes");
    const Cpuinfo info = parse_cpuinfo(text, std::nullopt);
    CHECK(info.cpu_type.count(0) == 1);
    CHECK(info.cpu_type.count(999999999) == 0);
    CpuSet set;
    set.insert(CpuSet::kMaxCpus);
    set.insert(3);
    CHECK(set.members() == std::vector<size_t>{3});
}

TEST_CASE("a Graviton2 decodes to ARM Neoverse-N1 r3p1") {
    const Cpuinfo info = parse_cpuinfo(kGraviton2Block, std::nullopt);
    REQUIRE(info.types.size() == 1);
    CHECK(info.arm_architecture == "8");
    const CpuType type = decode_cpu_type(info.types[0]);
    CHECK(type.vendor_id == "ARM");
    CHECK(type.model_name == "Neoverse-N1");
    CHECK(type.stepping == "r3p1");
    CHECK(type.model == "1");  // lscpu's Model: is the CPU revision on ARM
    REQUIRE(type.arm.has_value());
    CHECK(type.arm->part == 0xd0cu);
    CHECK(type.arm->cloud_note.value_or("").find("Graviton2") != std::string::npos);
    CHECK(std::find(type.flags.begin(), type.flags.end(), "pmull") != type.flags.end());
}

TEST_CASE("unknown ARM parts keep the implementer and have no model name") {
    const Cpuinfo info = parse_cpuinfo(
        "processor: 0\nCPU implementer: 0x41\nCPU variant: 0x0\nCPU part: 0xfff\nCPU revision: 2\n",
        std::nullopt);
    const CpuType type = decode_cpu_type(info.types.at(0));
    CHECK(type.vendor_id == "ARM");
    CHECK_FALSE(type.model_name.has_value());
    CHECK(type.stepping == "r0p2");
}

TEST_CASE("garbage never crashes the parser, and gives what it holds") {
    // What each input gives: its types, each CPU with the index of its type, the cpu MHz values,
    // the ARM architecture, and what each type decodes to (vendor, model name, CPU count).
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "types=0 cpus= mhz=0 arm=-"},
        {"\n\n", "types=0 cpus= mhz=0 arm=-"},
        {":::", "types=0 cpus= mhz=0 arm=-"},
        {"processor", "types=0 cpus= mhz=0 arm=-"},
        {"processor : x\nflags : a\n", "types=1 cpus=0:0, mhz=0 arm=- [- - cpus=0]"},
        {"processor 99999999999999999999: 1\n", "types=0 cpus= mhz=0 arm=-"},
        {"cpu MHz : 1\nmodel name :\n", "types=0 cpus= mhz=0 arm=-"},
        {"CPU implementer : 0xzz\nCPU part : 0x\n", "types=1 cpus= mhz=0 arm=- [0xzz - cpus=0]"},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        const Cpuinfo info = parse_cpuinfo(text, std::nullopt);
        std::string summary = "types=" + std::to_string(info.types.size()) + " cpus=";
        for (const auto& [cpu, type] : info.cpu_type)
            summary += std::to_string(cpu) + ":" + std::to_string(type) + ",";
        summary += " mhz=" + std::to_string(info.cpu_mhz.size()) +
                   " arm=" + info.arm_architecture.value_or("-");
        for (const auto& raw : info.types) {
            const CpuType type = decode_cpu_type(raw);
            summary += " [" + type.vendor_id.value_or("-") + " " + type.model_name.value_or("-") +
                       " cpus=" + std::to_string(type.cpus.size()) + "]";
        }
        CHECK(summary == expected);
    }
}
