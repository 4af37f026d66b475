#include "host/host_facts.hpp"

#include <sys/utsname.h>

#include <algorithm>

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

bool has_word(const std::optional<std::string>& text, std::string_view word) {
    if (!text) return false;
    for (std::string_view item : split_whitespace(*text)) {
        if (item == word) return true;
    }
    return false;
}

std::optional<std::string> op_modes(const RawCpuType& type) {
    bool bits32 = false, bits64 = false;
    for (const char* flag : {"lm", "zarch", "sun4v", "sun4u"}) {
        if (has_word(type.flags, flag)) bits32 = bits64 = true;
    }
    for (const char* isa : {"loongarch32", "loongarch32s", "loongarch32r"}) {
        if (has_word(type.isa, isa)) bits32 = true;
    }
    if (has_word(type.isa, "loongarch64")) bits64 = true;
    if (bits32 && bits64) return "32-bit, 64-bit";
    if (bits32) return "32-bit";
    if (bits64) return "64-bit";
    return std::nullopt;
}

std::optional<std::string> byte_order(const SysRoot& root) {
    auto order = root.read_line("/sys/kernel/cpu_byteorder");
    if (!order) return std::nullopt;
    return *order == "big" ? "Big Endian" : "Little Endian";
}

// The CPUs lscpu reads caches for: every possible CPU (all of which have a type).
std::vector<size_t> typed_cpus(const std::vector<CpuType>& types) {
    std::vector<size_t> cpus;
    for (const auto& type : types)
        cpus.insert(cpus.end(), type.cpus.begin(), type.cpus.end());
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

std::string flags_text(const CpuType* type) {
    return type ? join(type->flags, " ") : "";
}

// OpenSSL's settings beside the CPU's own flags, which tell a masked AES from an absent one.
std::optional<OpensslCpu> openssl_cpu_of(const std::optional<std::string>& settings,
                                         const CpuType* cpu, std::vector<std::string>& warnings) {
    if (!settings) return std::nullopt;
    auto parsed = parse_openssl_cpu_settings(*settings);
    if (!parsed) {
        warnings.push_back(parsed.error().message);
        return std::nullopt;
    }
    std::optional<std::vector<std::string>> flags;
    if (cpu && !cpu->flags.empty()) flags = cpu->flags;
    parsed->aes_hardware = judge_aes_hardware(*parsed, flags);
    return std::move(*parsed);
}

}  // namespace

LiveInputs read_live_inputs() {
    LiveInputs live;
    utsname name{};
    if (uname(&name) == 0) live.machine = name.machine;
    live.affinity_cpus = affinity_cpu_count();
    live.openssl_cpu_settings = read_openssl_cpu_settings();
    return live;
}

std::string infer_architecture(const Cpuinfo& cpuinfo) {
    if (cpuinfo.types.empty()) return "unknown";
    const RawCpuType& type = cpuinfo.types[0];
    const std::string vendor = type.vendor.value_or("");
    const std::string model_name = type.model_name.value_or("");
    if (vendor == "GenuineIntel" || vendor == "AuthenticAMD" || vendor == "HygonGenuine" ||
        vendor == "CentaurHauls" || vendor == "  Shanghai  " || has_word(type.flags, "fpu")) {
        return has_word(type.flags, "lm") ? "x86_64" : "i686";
    }
    if (cpuinfo.arm_architecture) {
        return *cpuinfo.arm_architecture == "8" || has_word(type.flags, "asimd") ? "aarch64"
                                                                                 : "armv7l";
    }
    if (vendor == "IBM/S390") return "s390x";
    if (type.isa && to_lower(*type.isa).rfind("rv64", 0) == 0) return "riscv64";
    if (type.isa && contains(*type.isa, "loongarch64")) return "loongarch64";
    if (contains(model_name, "Sparc") || contains(model_name, "SPARC")) return "sparc64";
    if (contains(model_name, "POWER")) return "ppc64";
    if (contains(model_name, "740/750") || contains(model_name, "PowerPC")) return "ppc";
    return "unknown";
}

std::optional<std::string> emulation_warning(const std::string& machine,
                                             const std::string& described) {
    if (described == "unknown" || machine.empty() || machine == described) return std::nullopt;
    // A 32-bit process on a 64-bit CPU of the same family is no emulation.
    if ((machine == "i686" && described == "x86_64") ||
        (machine == "armv7l" && described == "aarch64"))
        return std::nullopt;
    return "this process runs as " + machine + " but /proc/cpuinfo describes an " + described +
           " CPU: it is emulated (qemu-user through binfmt_misc?), so the CPU model, flags and "
           "guess describe the host that emulates it";
}

uint32_t HostFacts::present_cpus() const {
    if (cpu_lists.present) return static_cast<uint32_t>(cpu_lists.present->count());
    return static_cast<uint32_t>(online_cpus());
}

uint32_t HostFacts::online_cpus() const {
    return cpu_lists.online ? static_cast<uint32_t>(cpu_lists.online->count()) : 0;
}

HostFacts collect_host_facts(const SysRoot& root, const CpuidSource& cpuid,
                             const std::optional<LiveInputs>& live) {
    HostFacts facts;
    facts.sysroot = root.prefix();
    facts.cpu_lists = read_cpu_lists(root);
    facts.warnings = facts.cpu_lists.warnings;

    // Without a possible list, the online list (or cpuinfo's own numbering) stands in.
    std::optional<CpuSet> possible = facts.cpu_lists.possible;
    if (!possible && facts.cpu_lists.online) possible = facts.cpu_lists.online;
    Cpuinfo cpuinfo;
    if (auto text = root.read_file("/proc/cpuinfo")) {
        cpuinfo = parse_cpuinfo(*text, possible);
    } else {
        facts.warnings.push_back("cannot read " + text.error().message);
    }
    if (!possible) {
        CpuSet from_cpuinfo;
        for (const auto& [cpu, type] : cpuinfo.cpu_type)
            from_cpuinfo.insert(cpu);
        possible = from_cpuinfo;
    }
    if (!facts.cpu_lists.online) {
        facts.warnings.push_back(
            "/sys/devices/system/cpu/online is missing; assuming all CPUs in cpuinfo are online");
        facts.cpu_lists.online = *possible;
    }

    facts.architecture = live ? live->machine : infer_architecture(cpuinfo);
    if (auto mismatch = emulation_warning(facts.architecture, infer_architecture(cpuinfo)))
        facts.warnings.push_back(*mismatch);
    if (!cpuinfo.types.empty()) facts.op_modes = op_modes(cpuinfo.types[0]);
    facts.byte_order = byte_order(root);
    facts.cpu_types = build_cpu_types(root, cpuinfo, *possible);
    if (facts.cpu_types.empty()) facts.warnings.push_back("/proc/cpuinfo describes no CPU");
    facts.caches = read_caches(root, typed_cpus(facts.cpu_types));
    facts.numa_nodes = read_numa_nodes(root);
    CpuVulnerabilities vulnerabilities = read_cpu_vulnerabilities(root);
    facts.cpu_vulnerabilities = std::move(vulnerabilities.entries);
    facts.warnings.insert(facts.warnings.end(), vulnerabilities.warnings.begin(),
                          vulnerabilities.warnings.end());

    const CpuType* cpu = facts.default_type();
    facts.hypervisor = detect_hypervisor(HypervisorInputs{
        root, cpuid, flags_text(cpu), cpu && cpu->model_name ? *cpu->model_name : ""});

    facts.cgroup = read_cgroup_facts(root);
    facts.warnings.insert(facts.warnings.end(), facts.cgroup.warnings.begin(),
                          facts.cgroup.warnings.end());

    // Live, the affinity mask already reflects any cpuset; a dump only has the files.
    uint32_t visible = facts.online_cpus();
    if (live && live->affinity_cpus) {
        visible = *live->affinity_cpus;
    } else if (!live && facts.cgroup.cpuset && !facts.cgroup.cpuset->empty()) {
        visible = std::min(visible, static_cast<uint32_t>(facts.cgroup.cpuset->count()));
    }
    facts.cpu_budget = compute_cpu_budget(facts.cgroup.cpu_quota, visible);
    if (cpu) facts.guess = guess_host(*cpu, facts.hypervisor);
    if (live) facts.openssl_cpu = openssl_cpu_of(live->openssl_cpu_settings, cpu, facts.warnings);
    return facts;
}

HostFacts collect_host_facts(const SysRoot& root) {
    if (root.is_live()) return collect_host_facts(root, LiveCpuid(), read_live_inputs());
    return collect_host_facts(root, NoCpuid(), std::nullopt);
}

}  // namespace hostprobe::host
