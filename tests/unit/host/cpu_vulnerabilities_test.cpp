// /sys/devices/system/cpu/vulnerabilities as lscpu prints it (util-linux's
// lscpu_read_vulnerabilities), its bounds, and which mitigations cost every system call. The
// kernel lines are this machine's (Linux 6.x, Intel) and those of util-linux's dumps.
#include "host/cpu_vulnerabilities.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

const std::string kVulnerabilities = "sys/devices/system/cpu/vulnerabilities/";

CpuVulnerability vulnerability_of(const std::string& name, const std::string& line) {
    auto parsed = parse_cpu_vulnerability(name, line);
    REQUIRE(parsed.has_value());
    return *parsed;
}

std::vector<std::string> titles_of(const std::vector<CpuVulnerability>& entries) {
    std::vector<std::string> titles;
    for (const auto& entry : entries)
        titles.push_back(entry.title);
    return titles;
}

// "name: mitigation" of each costing mitigation found in these kernel lines.
std::vector<std::string> costing_of(
    const std::vector<std::pair<std::string, std::string>>& kernel_lines) {
    std::vector<CpuVulnerability> entries;
    for (const auto& [name, line] : kernel_lines)
        entries.push_back(vulnerability_of(name, line));
    std::vector<std::string> found;
    for (const auto& costing : syscall_costing_mitigations(entries)) {
        CHECK_FALSE(costing.cost.empty());
        found.push_back(costing.name + ": " + costing.mitigation);
    }
    return found;
}

}  // namespace

TEST_CASE("lscpu's title: first letter upper case, '_' as a space") {
    CHECK(vulnerability_title("spec_store_bypass") == "Spec store bypass");
    CHECK(vulnerability_title("l1tf") == "L1tf");
    CHECK(vulnerability_title("mds") == "Mds");
    CHECK(vulnerability_title("spectre_v2") == "Spectre v2");
    CHECK(vulnerability_title("9lives") == "9lives");
}

TEST_CASE("lscpu's text: after Mitigation the next character is ';' and no ':' is left") {
    CHECK(lscpu_vulnerability_text("Mitigation: Retpolines; STIBP: disabled") ==
          "Mitigation; Retpolines; STIBP disabled");
    CHECK(lscpu_vulnerability_text("Mitigation: Retpolines; STIBP: disabled; RSB filling; "
                                   "PBRSB-eIBRS: Not affected; BHI: Retpoline") ==
          "Mitigation; Retpolines; STIBP disabled; RSB filling; PBRSB-eIBRS Not affected; BHI "
          "Retpoline");
    CHECK(lscpu_vulnerability_text("Mitigation: PTI") == "Mitigation; PTI");
    // Other lines are left as the kernel wrote them, colons and all.
    CHECK(lscpu_vulnerability_text("Vulnerable: Unprivileged eBPF enabled") ==
          "Vulnerable: Unprivileged eBPF enabled");
    CHECK(lscpu_vulnerability_text("KVM: Mitigation: VMX unsupported") ==
          "KVM: Mitigation: VMX unsupported");
    CHECK(lscpu_vulnerability_text("Not affected") == "Not affected");
    // util-linux overwrites whatever follows the word, a ':' or not.
    CHECK(lscpu_vulnerability_text("Mitigations: a: b") == "Mitigation; a b");
    CHECK(lscpu_vulnerability_text("Mitigation") == "Mitigation");
}

TEST_CASE("the status the kernel's line states") {
    CHECK(vulnerability_status("Not affected") == VulnerabilityStatus::not_affected);
    CHECK(vulnerability_status("Mitigation: PTI") == VulnerabilityStatus::mitigation);
    CHECK(vulnerability_status("KVM: Mitigation: Split huge pages") ==
          VulnerabilityStatus::mitigation);
    CHECK(vulnerability_status("Vulnerable") == VulnerabilityStatus::vulnerable);
    CHECK(vulnerability_status("Vulnerable: Clear CPU buffers attempted, no microcode") ==
          VulnerabilityStatus::vulnerable);
    CHECK(vulnerability_status("KVM: Vulnerable") == VulnerabilityStatus::vulnerable);
    CHECK(vulnerability_status("Processor vulnerable") == VulnerabilityStatus::vulnerable);
    CHECK(vulnerability_status("Unknown: Dependent on hypervisor status") ==
          VulnerabilityStatus::unknown);
    CHECK(std::string(vulnerability_status_name(VulnerabilityStatus::not_affected)) ==
          "not_affected");
}

TEST_CASE("a name must be one the kernel could write") {
    CHECK(is_vulnerability_name("spec_rstack_overflow"));
    CHECK(is_vulnerability_name("l1tf"));
    CHECK_FALSE(is_vulnerability_name(""));
    CHECK_FALSE(is_vulnerability_name("Meltdown"));
    CHECK_FALSE(is_vulnerability_name("spectre-v2"));
    CHECK_FALSE(is_vulnerability_name(".hidden"));
    CHECK_FALSE(is_vulnerability_name("a b"));
    CHECK_FALSE(is_vulnerability_name("caf\xc3\xa9"));
    CHECK(is_vulnerability_name(std::string(kMaxVulnerabilityNameBytes, 'a')));
    CHECK_FALSE(is_vulnerability_name(std::string(kMaxVulnerabilityNameBytes + 1, 'a')));
}

TEST_CASE("lscpu's order is by title, byte by byte, not by file name") {
    // ' ' sorts before digits in the title, '_' after them in the file name.
    std::vector<CpuVulnerability> entries = {
        vulnerability_of("spectre_v1", "Not affected"),
        vulnerability_of("spec_store_bypass", "Vulnerable"), vulnerability_of("a0", "Not affected"),
        vulnerability_of("a_b", "Not affected"), vulnerability_of("meltdown", "Not affected")};
    sort_cpu_vulnerabilities(entries);
    CHECK(titles_of(entries) ==
          std::vector<std::string>{"A b", "A0", "Meltdown", "Spec store bypass", "Spectre v1"});
}

TEST_CASE("a folder is read like lscpu: empty files and odd names skipped, sorted") {
    testing::TempTree tree;
    tree.write(kVulnerabilities + "spectre_v2",
               "Mitigation: Retpolines; STIBP: disabled; RSB filling\n")
        .write(kVulnerabilities + "meltdown", "Not affected\n")
        .write(kVulnerabilities + "spec_store_bypass", "Vulnerable\n")
        .write(kVulnerabilities + "empty", "")
        .write(kVulnerabilities + "blank", "\n")
        .write(kVulnerabilities + "Capital", "Not affected\n")
        .write(kVulnerabilities + "dash-name", "Not affected\n")
        .mkdir(kVulnerabilities + "subdir");
    const auto found = read_cpu_vulnerabilities(SysRoot(tree.root()));
    CHECK(titles_of(found.entries) ==
          std::vector<std::string>{"Meltdown", "Spec store bypass", "Spectre v2"});
    CHECK(found.entries[2].name == "spectre_v2");
    CHECK(found.entries[2].status == VulnerabilityStatus::mitigation);
    CHECK(found.entries[2].text == "Mitigation; Retpolines; STIBP disabled; RSB filling");
    CHECK(found.entries[1].status == VulnerabilityStatus::vulnerable);
    REQUIRE(found.warnings.size() == 1);
    CHECK(found.warnings[0].find("2 entries") != std::string::npos);
}

TEST_CASE("no folder: no entries and no warning") {
    testing::TempTree tree;
    tree.write("sys/devices/system/cpu/online", "0\n");
    const auto found = read_cpu_vulnerabilities(SysRoot(tree.root()));
    CHECK(found.entries.empty());
    CHECK(found.warnings.empty());
}

TEST_CASE("bounds: at most 64 files, each line at most 512 bytes") {
    testing::TempTree tree;
    for (int i = 0; i < 70; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "v%02d", i);
        tree.write(kVulnerabilities + name, "Not affected\n");
    }
    auto many = read_cpu_vulnerabilities(SysRoot(tree.root()));
    CHECK(many.entries.size() == kMaxCpuVulnerabilities);
    CHECK(many.entries.back().name == "v63");
    REQUIRE(many.warnings.size() == 1);
    CHECK(many.warnings[0].find("has 70 files") != std::string::npos);

    testing::TempTree lengths;
    lengths.write(kVulnerabilities + "at_bound", std::string(kMaxVulnerabilityTextBytes, 'x'))
        .write(kVulnerabilities + "long_line",
               "Mitigation: " + std::string(kMaxVulnerabilityTextBytes, 'x') + "\n")
        .write(kVulnerabilities + "huge_file", std::string(1 << 20, 'x'))
        .write(kVulnerabilities + "two_lines", "Not affected\nsecond line\n")
        // sysfs says every attribute is a page long (a file's size is checked before the read).
        .write(kVulnerabilities + "page_sized", "Vulnerable\n" + std::string(4096 - 11, '\0'));
    const auto bounded = read_cpu_vulnerabilities(SysRoot(lengths.root()));
    REQUIRE(bounded.entries.size() == 3);
    CHECK(bounded.entries[0].name == "at_bound");
    CHECK(bounded.entries[1].text == "Vulnerable");
    CHECK(bounded.entries[2].text == "Not affected");
    CHECK(bounded.warnings.size() == 2);  // the long line and the huge file
}

TEST_CASE("a line that is not UTF-8 is repaired") {
    const auto entry = vulnerability_of("mds", "Vulnerable: \xff");
    CHECK(entry.text == "Vulnerable: \xef\xbf\xbd");
}

TEST_CASE("mitigations that cost every system call, in the kernel's words") {
    // This machine (Intel, Linux 6.x): retpolines and ITS thunks.
    CHECK(costing_of({{"indirect_target_selection", "Mitigation: Aligned branch/return thunks"},
                      {"meltdown", "Not affected"},
                      {"retbleed", "Vulnerable"},
                      {"spectre_v1",
                       "Mitigation: usercopy/swapgs barriers and __user pointer "
                       "sanitization"},
                      {"spectre_v2",
                       "Mitigation: Retpolines; STIBP: disabled; RSB filling; "
                       "PBRSB-eIBRS: Not affected; BHI: Retpoline"}}) ==
          std::vector<std::string>{"indirect_target_selection: Aligned branch/return thunks",
                                   "spectre_v2: Retpolines"});
    // An older Intel with PTI, legacy IBRS, VERW and the BHI loop.
    CHECK(costing_of({{"meltdown", "Mitigation: PTI"},
                      {"mds", "Mitigation: Clear CPU buffers; SMT vulnerable"},
                      {"tsx_async_abort", "Mitigation: Clear CPU buffers; SMT vulnerable"},
                      {"mmio_stale_data", "Mitigation: Clear CPU buffers; SMT Host state unknown"},
                      {"reg_file_data_sampling", "Mitigation: Clear Register File"},
                      {"retbleed", "Mitigation: IBRS"},
                      {"spectre_v2",
                       "Mitigation: IBRS; IBPB: conditional; STIBP: disabled; RSB "
                       "filling; PBRSB-eIBRS: Not affected; BHI: SW loop, KVM: SW "
                       "loop"}}) ==
          std::vector<std::string>{
              "meltdown: PTI", "mds: Clear CPU buffers", "tsx_async_abort: Clear CPU buffers",
              "mmio_stale_data: Clear CPU buffers", "reg_file_data_sampling: Clear Register File",
              "retbleed: IBRS", "spectre_v2: IBRS", "spectre_v2: BHI SW loop"});
    // AMD Zen: untrained return thunk, safe RET (even without its microcode), older retpoline.
    CHECK(costing_of({{"retbleed",
                       "Mitigation: untrained return thunk; SMT enabled with STIBP "
                       "protection"},
                      {"spec_rstack_overflow", "Vulnerable: Safe RET, no microcode"},
                      {"spectre_v2",
                       "Mitigation: Full AMD retpoline, IBPB: conditional, STIBP: "
                       "disabled, RSB filling"},
                      {"tsa", "Mitigation: Clear CPU buffers: user/kernel boundary"}}) ==
          std::vector<std::string>{
              "retbleed: untrained return thunk", "spec_rstack_overflow: Safe RET",
              "spectre_v2: Full AMD retpoline", "tsa: Clear CPU buffers user/kernel boundary"});
}

TEST_CASE("mitigations paid elsewhere, or not at all, are not listed") {
    CHECK(costing_of({{"spectre_v2",
                       "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; "
                       "RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S"},
                      {"retbleed", "Mitigation: Enhanced IBRS"},
                      {"spec_rstack_overflow", "Mitigation: IBPB on VMEXIT only"},
                      {"vmscape", "Mitigation: IBPB before exit to userspace"},
                      {"tsa", "Mitigation: Clear CPU buffers: VM"},
                      {"spec_store_bypass",
                       "Mitigation: Speculative Store Bypass disabled via "
                       "prctl and seccomp"},
                      {"l1tf",
                       "Mitigation: PTE Inversion; VMX: conditional cache flushes, SMT "
                       "vulnerable"},
                      {"gather_data_sampling", "Mitigation: Microcode"},
                      {"itlb_multihit", "KVM: Mitigation: VMX disabled"},
                      {"mds", "Vulnerable: Clear CPU buffers attempted, no microcode"},
                      {"meltdown", "Vulnerable"}})
              .empty());
    CHECK(syscall_costing_mitigations({}).empty());
}
