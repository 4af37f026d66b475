// The kernel's view of the CPU's speculative-execution vulnerabilities
// (/sys/devices/system/cpu/vulnerabilities/<name>, one line each), shown as lscpu shows them
// (util-linux's lscpu_read_vulnerabilities): the file name with its first letter uppercased and
// '_' as ' ' ("spec_store_bypass" -> "Spec store bypass"); a line that starts with "Mitigation"
// has the character after that word made ';' and every other ':' removed ("Mitigation:
// Retpolines; STIBP: disabled" -> "Mitigation; Retpolines; STIBP disabled"); sorted by that name.
//
// Which of the mitigations make every system call and context switch dearer is a separate, pure
// question (syscall_costing_mitigations), for reports that explain a slow syscall-bound result.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sysroot.hpp"

namespace hostprobe::host {

enum class VulnerabilityStatus { not_affected, mitigation, vulnerable, unknown };

const char* vulnerability_status_name(VulnerabilityStatus status);

struct CpuVulnerability {
    std::string name;   // the sysfs file name: "spec_store_bypass"
    std::string title;  // lscpu's: "Spec store bypass"
    VulnerabilityStatus status = VulnerabilityStatus::unknown;
    std::string text;  // lscpu's: "Mitigation; Speculative Store Bypass disabled via prctl"
};

// Bounds on what a dump (or a kernel of the future) may hand us: kernels write about 20 such
// files, each one line of some tens of bytes, named like lower-case C identifiers.
inline constexpr size_t kMaxCpuVulnerabilities = 64;
inline constexpr size_t kMaxVulnerabilityNameBytes = 64;
inline constexpr size_t kMaxVulnerabilityTextBytes = 512;

inline constexpr std::string_view kVulnerabilitiesDir = "/sys/devices/system/cpu/vulnerabilities";

// A name the kernel could have written: 1 to kMaxVulnerabilityNameBytes of [a-z0-9_].
bool is_vulnerability_name(std::string_view name);

// lscpu's title of a file name ("spec_store_bypass" -> "Spec store bypass").
std::string vulnerability_title(std::string_view name);

// lscpu's text of the file's first line, as described above.
std::string lscpu_vulnerability_text(std::string_view line);

// The status the kernel's line states: "Not affected", "Mitigation: ...", "Vulnerable..." or
// "Processor vulnerable", each possibly after "KVM: " (itlb_multihit); anything else is unknown.
VulnerabilityStatus vulnerability_status(std::string_view line);

// One entry from a file's name and content (its first line, without surrounding whitespace);
// none for an empty line, which lscpu skips too. The name must pass is_vulnerability_name.
std::optional<CpuVulnerability> parse_cpu_vulnerability(std::string_view name,
                                                        std::string_view content);

// lscpu's order: by title, byte by byte (strcmp).
void sort_cpu_vulnerabilities(std::vector<CpuVulnerability>& vulnerabilities);

struct CpuVulnerabilities {
    std::vector<CpuVulnerability> entries;  // sorted, at most kMaxCpuVulnerabilities
    std::vector<std::string> warnings;      // skipped names, unreadable or overlong files
};

// Every non-empty file of the folder; a missing folder (an old kernel, a dump without it) is no
// entry and no warning.
CpuVulnerabilities read_cpu_vulnerabilities(const SysRoot& root);

// A mitigation that makes system calls and context switches dearer: it runs on every kernel
// entry or exit (page-table switches, buffer clearing, return thunks, predictor barriers).
struct SyscallCostingMitigation {
    std::string name;        // the vulnerability's sysfs file name: "meltdown"
    std::string mitigation;  // what the kernel does, shortly: "PTI"
    std::string cost;        // where the time goes
};

// Pure: which of `vulnerabilities` (as parsed above) have such a mitigation in force, in their
// order. Mitigations paid only by processes that ask (prctl, seccomp), at VM exits, or by
// particular instructions (gather, RDRAND) are not listed.
std::vector<SyscallCostingMitigation> syscall_costing_mitigations(
    const std::vector<CpuVulnerability>& vulnerabilities);

}  // namespace hostprobe::host
