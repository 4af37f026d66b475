#include "host/cpu_vulnerabilities.hpp"

#include <algorithm>

#include "core/strings.hpp"
#include "core/utf8.hpp"

namespace hostprobe::host {

namespace {

constexpr std::string_view kMitigation = "Mitigation";

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// A file holds one short line, but sysfs gives every attribute the size of a page (4 KiB; 64 KiB
// on arm64 kernels built with 64 KiB pages), which the read checks first.
constexpr size_t kMaxVulnerabilityFileBytes = 64 * 1024;

std::string_view first_line(std::string_view content) {
    return trim(content.substr(0, content.find('\n')));
}

// What a file held: an entry, nothing to show (empty), or a warning.
std::optional<CpuVulnerability> read_one(const SysRoot& root, const std::string& name,
                                         std::vector<std::string>& warnings) {
    const std::string path = std::string(kVulnerabilitiesDir) + "/" + name;
    auto content = root.read_file(path, kMaxVulnerabilityFileBytes);
    if (!content) {
        warnings.push_back("cannot read " + content.error().message);
        return std::nullopt;
    }
    const std::string_view line = first_line(*content);
    if (line.size() > kMaxVulnerabilityTextBytes) {
        warnings.push_back(path + " is skipped: its line is longer than " +
                           std::to_string(kMaxVulnerabilityTextBytes) + " bytes");
        return std::nullopt;
    }
    return parse_cpu_vulnerability(name, line);
}

// The names the kernel could have written, sorted; the others are only counted.
std::vector<std::string> readable_names(const SysRoot& root, std::vector<std::string>& warnings) {
    std::vector<std::string> names;
    size_t odd = 0;
    for (std::string& name : root.list_directory(kVulnerabilitiesDir)) {
        if (!is_vulnerability_name(name)) {
            ++odd;
        } else if (!root.is_directory(std::string(kVulnerabilitiesDir) + "/" + name)) {
            names.push_back(std::move(name));  // (lscpu skips directories too)
        }
    }
    if (odd > 0) {
        warnings.push_back(std::to_string(odd) + " entries of " + std::string(kVulnerabilitiesDir) +
                           " are skipped: names other than 1 to " +
                           std::to_string(kMaxVulnerabilityNameBytes) + " of [a-z0-9_]");
    }
    if (names.size() > kMaxCpuVulnerabilities) {
        warnings.push_back(std::string(kVulnerabilitiesDir) + " has " +
                           std::to_string(names.size()) + " files; only the first " +
                           std::to_string(kMaxCpuVulnerabilities) + " by name are read");
        names.resize(kMaxCpuVulnerabilities);
    }
    return names;
}

// After "Mitigation; ", the kernel's main mitigation, before its details: "Retpolines" of
// "Mitigation; Retpolines; STIBP disabled", "Full AMD retpoline" of older kernels' "Mitigation;
// Full AMD retpoline, IBPB conditional".
std::string_view main_mitigation(const CpuVulnerability& vulnerability) {
    std::string_view rest = vulnerability.text;
    if (!starts_with(rest, "Mitigation;")) return {};  // (not "KVM: Mitigation: ...")
    rest.remove_prefix(kMitigation.size() + 1);
    return trim(rest.substr(0, rest.find_first_of(";,")));
}

// The ';'-separated parts after the main mitigation: "BHI SW loop, KVM SW loop" and the like.
bool has_detail_starting(const CpuVulnerability& vulnerability, std::string_view prefix) {
    if (vulnerability.status != VulnerabilityStatus::mitigation) return false;
    for (std::string_view part : split(vulnerability.text, ';')) {
        if (starts_with(trim(part), prefix)) return true;
    }
    return false;
}

// How a rule recognises its mitigation in lscpu's text.
enum class Match {
    main_is,                 // the main mitigation is the pattern
    main_contains_any_case,  // it holds the pattern, in any case ("Full AMD retpoline")
    detail_starts_with,      // a later ';' part starts with the pattern
    text_contains,           // the text holds it, whatever the status
};

struct CostRule {
    std::string_view name;  // the vulnerability's file name
    Match match;
    std::string_view pattern;
    std::string_view cost;
};

constexpr std::string_view kVerwCost = "VERW clears the CPU buffers on every return to user space";
constexpr std::string_view kIbpbCost =
    "an indirect branch prediction barrier on every kernel entry";
constexpr std::string_view kIbrsCost = "an MSR write on every kernel entry and exit (IBRS)";

// The kernel's words (arch/x86/kernel/cpu/bugs.c; arm64 also writes "Mitigation: PTI") for each
// mitigation that runs on every kernel entry or exit.
constexpr CostRule kCostRules[] = {
    {"meltdown", Match::main_is, "PTI",
     "page-table isolation: every kernel entry and exit switches page tables (a CR3 write, and "
     "without PCID a TLB flush)"},
    {"spectre_v2", Match::main_contains_any_case, "retpoline",
     "every indirect call and jump in the kernel goes through a retpoline thunk"},
    {"spectre_v2", Match::main_is, "IBRS", kIbrsCost},
    {"spectre_v2", Match::detail_starts_with, "BHI SW loop",
     "a loop clears the branch history on every system call entry"},
    {"retbleed", Match::main_is, "untrained return thunk",
     "every return in the kernel goes through a thunk that untrains the return predictor"},
    {"retbleed", Match::main_is, "IBRS", kIbrsCost},
    {"retbleed", Match::main_is, "IBPB", kIbpbCost},
    {"retbleed", Match::main_is, "Stuffing",
     "call depth tracking: kernel calls count their depth and refill the return stack buffer"},
    {"indirect_target_selection", Match::main_contains_any_case, "thunk",
     "the kernel's indirect branches and returns go through thunks"},
    {"indirect_target_selection", Match::main_contains_any_case, "retpoline",
     "the kernel's indirect branches go through retpoline thunks"},
    // Also "Vulnerable: Safe RET, no microcode": the thunk runs all the same.
    {"spec_rstack_overflow", Match::text_contains, "Safe RET",
     "every return in the kernel goes through a return thunk"},
    {"spec_rstack_overflow", Match::main_is, "IBPB", kIbpbCost},
    {"mds", Match::main_is, "Clear CPU buffers", kVerwCost},
    {"tsx_async_abort", Match::main_is, "Clear CPU buffers", kVerwCost},
    {"mmio_stale_data", Match::main_is, "Clear CPU buffers", kVerwCost},
    {"reg_file_data_sampling", Match::main_is, "Clear Register File",
     "VERW clears the register file on every return to user space"},
    // Not "Clear CPU buffers: VM", which clears them at VM entry only.
    {"tsa", Match::main_is, "Clear CPU buffers", kVerwCost},
    {"tsa", Match::main_is, "Clear CPU buffers user/kernel boundary", kVerwCost},
};

bool matches(const CostRule& rule, const CpuVulnerability& vulnerability) {
    if (rule.name != vulnerability.name) return false;
    const std::string_view main = main_mitigation(vulnerability);
    switch (rule.match) {
        case Match::main_is: return main == rule.pattern;
        case Match::main_contains_any_case: return contains(to_lower(main), rule.pattern);
        case Match::detail_starts_with: return has_detail_starting(vulnerability, rule.pattern);
        case Match::text_contains: return contains(vulnerability.text, rule.pattern);
    }
    return false;
}

// What a rule found: its pattern when that is the kernel's whole phrase for a detail, else the
// main mitigation in the kernel's words ("Retpolines", "Full AMD retpoline").
std::string_view mitigation_named(const CostRule& rule, const CpuVulnerability& vulnerability) {
    if (rule.match == Match::detail_starts_with || rule.match == Match::text_contains)
        return rule.pattern;
    return main_mitigation(vulnerability);
}

}  // namespace

const char* vulnerability_status_name(VulnerabilityStatus status) {
    switch (status) {
        case VulnerabilityStatus::not_affected: return "not_affected";
        case VulnerabilityStatus::mitigation: return "mitigation";
        case VulnerabilityStatus::vulnerable: return "vulnerable";
        case VulnerabilityStatus::unknown: return "unknown";
    }
    return "unknown";
}

bool is_vulnerability_name(std::string_view name) {
    if (name.empty() || name.size() > kMaxVulnerabilityNameBytes) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::string vulnerability_title(std::string_view name) {
    std::string title(name);
    if (!title.empty() && title[0] >= 'a' && title[0] <= 'z') title[0] = char(title[0] - 'a' + 'A');
    std::replace(title.begin(), title.end(), '_', ' ');
    return title;
}

std::string lscpu_vulnerability_text(std::string_view line) {
    std::string text(line);
    if (!starts_with(text, kMitigation) || text.size() == kMitigation.size()) return text;
    text[kMitigation.size()] = ';';
    std::erase(text, ':');
    return text;
}

VulnerabilityStatus vulnerability_status(std::string_view line) {
    if (starts_with(line, "KVM: ")) line.remove_prefix(5);
    if (starts_with(line, "Not affected")) return VulnerabilityStatus::not_affected;
    if (starts_with(line, kMitigation)) return VulnerabilityStatus::mitigation;
    if (starts_with(line, "Vulnerable") || starts_with(line, "Processor vulnerable"))
        return VulnerabilityStatus::vulnerable;
    return VulnerabilityStatus::unknown;
}

std::optional<CpuVulnerability> parse_cpu_vulnerability(std::string_view name,
                                                        std::string_view content) {
    const std::string_view line = first_line(content);
    if (line.empty()) return std::nullopt;
    return CpuVulnerability{std::string(name), vulnerability_title(name),
                            vulnerability_status(line), valid_utf8(lscpu_vulnerability_text(line))};
}

void sort_cpu_vulnerabilities(std::vector<CpuVulnerability>& vulnerabilities) {
    std::stable_sort(
        vulnerabilities.begin(), vulnerabilities.end(),
        [](const CpuVulnerability& a, const CpuVulnerability& b) { return a.title < b.title; });
}

CpuVulnerabilities read_cpu_vulnerabilities(const SysRoot& root) {
    CpuVulnerabilities found;
    for (const std::string& name : readable_names(root, found.warnings)) {
        if (auto entry = read_one(root, name, found.warnings))
            found.entries.push_back(std::move(*entry));
    }
    sort_cpu_vulnerabilities(found.entries);
    return found;
}

std::vector<SyscallCostingMitigation> syscall_costing_mitigations(
    const std::vector<CpuVulnerability>& vulnerabilities) {
    std::vector<SyscallCostingMitigation> costing;
    for (const CpuVulnerability& vulnerability : vulnerabilities) {
        for (const CostRule& rule : kCostRules) {
            if (!matches(rule, vulnerability)) continue;
            costing.push_back({vulnerability.name,
                               std::string(mitigation_named(rule, vulnerability)),
                               std::string(rule.cost)});
        }
    }
    return costing;
}

}  // namespace hostprobe::host
