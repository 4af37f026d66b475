#include "host/hypervisor.hpp"

#include <regex>

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

bool has_flag(const std::string& flags, std::string_view flag) {
    for (std::string_view word : split_whitespace(flags)) {
        if (word == flag) return true;
    }
    return false;
}

std::optional<std::string> read_trimmed(const SysRoot& root, const std::string& path) {
    auto line = root.read_line(path);
    if (!line || line->empty()) return std::nullopt;
    return *line;
}

void conclude(HypervisorFacts& facts, std::string vendor, std::string type, std::string evidence) {
    facts.vendor = std::move(vendor);
    facts.virtualization_type = std::move(type);
    facts.evidence.push_back(std::move(evidence));
}

bool device_tree_compatible(const SysRoot& root, std::string_view wanted) {
    auto text = root.read_file("/proc/device-tree/compatible");
    if (!text) return false;
    for (std::string_view entry : split(*text, '\0')) {
        if (entry == wanted) return true;
    }
    return false;
}

// POWER partitions (lscpu's pHyp / OS/400 / qemu pseries checks).
bool detect_powerpc(const SysRoot& root, HypervisorFacts& facts) {
    if (root.exists("/proc/iSeries")) {
        conclude(facts, "OS/400", "para", "/proc/iSeries exists");
        return true;
    }
    if (device_tree_compatible(root, "ibm,powernv")) return true;  // bare metal POWER
    if (root.exists("/proc/device-tree/ibm,partition-name") &&
        root.exists("/proc/device-tree/hmc-managed?") &&
        !root.exists("/proc/device-tree/chosen/qemu,graphic-width")) {
        auto name = root.read_file("/proc/device-tree/ibm,partition-name");
        const bool full = name && split_whitespace(split(*name, '\0')[0]) ==
                                      std::vector<std::string_view>{"full"};
        conclude(facts, "pHyp", full ? "none" : "para", "device tree ibm,partition-name");
        return true;
    }
    if (device_tree_compatible(root, "qemu,pseries")) {
        conclude(facts, "KVM", "para", "device tree compatible qemu,pseries");
        return true;
    }
    return false;
}

bool detect_xen(const SysRoot& root, bool hypervisor_flag, HypervisorFacts& facts) {
    const bool proc_xen = root.exists("/proc/xen");
    const auto sys_type = read_trimmed(root, "/sys/hypervisor/type");
    if (!proc_xen && sys_type != "xen") return false;
    auto capabilities = root.read_file("/proc/xen/capabilities");
    if (capabilities && split_whitespace(*capabilities).size() > 0 &&
        split_whitespace(*capabilities)[0] == "control_d") {
        conclude(facts, "Xen", "none", "/proc/xen/capabilities says control_d (dom0)");
        return true;
    }
    // An HVM guest's CPU carries the hypervisor flag; a paravirtualized one does not.
    conclude(facts, "Xen", hypervisor_flag ? "full" : "para",
             proc_xen ? "/proc/xen exists" : "/sys/hypervisor/type is xen");
    return true;
}

bool detect_pci(const SysRoot& root, HypervisorFacts& facts) {
    auto devices = root.read_file("/proc/bus/pci/devices");
    if (!devices) return false;
    struct Known {
        const char* vendor_device;
        const char* vendor;
    };
    static constexpr Known kKnown[] = {
        {"58530001", "Xen"}, {"15ad0710", "VMware"}, {"80eebeef", "Oracle"}};
    for (std::string_view line : split_lines(*devices)) {
        const auto fields = split(line, '\t');
        if (fields.size() < 2) break;
        const std::string id = to_lower(fields[1].substr(0, 8));
        for (const auto& known : kKnown) {
            if (id == known.vendor_device) {
                conclude(facts, known.vendor, "full",
                         "PCI device " + id + " in /proc/bus/pci/devices");
                return true;
            }
        }
    }
    return false;
}

bool detect_s390(const SysRoot& root, HypervisorFacts& facts) {
    auto sysinfo = root.read_file("/proc/sysinfo");
    if (!sysinfo) return false;
    for (std::string_view line : split_lines(*sysinfo)) {
        if (!contains(line, "Control Program:")) continue;
        conclude(
            facts, contains(line, "KVM") ? "KVM" : "IBM", "full",
            "/proc/sysinfo Control Program: " + std::string(trim(line.substr(line.find(':') + 1))));
        return true;
    }
    conclude(facts, "IBM", "full", "/proc/sysinfo (PR/SM)");
    return true;
}

// DMI names the machine even where nothing else does (Nitro has no /proc/xen and no PCI id
// above); on arm64 it is the only hint, as the CPU has no hypervisor flag.
bool detect_dmi(HypervisorFacts& facts) {
    if (!facts.dmi_sys_vendor) return false;
    const std::string& vendor = *facts.dmi_sys_vendor;
    const std::string product = facts.dmi_product_name.value_or("");
    if (vendor == "Amazon EC2") {
        if (product.size() > 6 && product.substr(product.size() - 6) == ".metal") return false;
        conclude(facts, "KVM", "full", "DMI sys_vendor 'Amazon EC2' (Nitro)");
        return true;
    }
    struct Known {
        const char* sys_vendor;
        const char* product_prefix;
        const char* vendor;
    };
    static constexpr Known kKnown[] = {
        {"QEMU", "", "KVM"},
        {"VMware, Inc.", "", "VMware"},
        {"innotek GmbH", "", "Oracle"},
        {"Xen", "", "Xen"},
        {"Microsoft Corporation", "Virtual Machine", "Microsoft"},
        {"Google", "Google Compute Engine", "KVM"},
        {"Parallels Software International Inc.", "", "Parallels"},
    };
    for (const auto& known : kKnown) {
        if (vendor == known.sys_vendor && product.rfind(known.product_prefix, 0) == 0) {
            conclude(facts, known.vendor, "full", "DMI sys_vendor '" + vendor + "'");
            return true;
        }
    }
    return false;
}

void detect_platform(const SysRoot& root, HypervisorFacts& facts) {
    static const std::regex instance_type(R"(^[a-z][a-z0-9-]*\.[0-9a-z-]+$)");
    if (facts.dmi_sys_vendor == "Amazon EC2") {
        const std::string product = facts.dmi_product_name.value_or("");
        const bool metal = product.size() > 6 && product.substr(product.size() - 6) == ".metal";
        facts.platform = metal ? "AWS Nitro (bare metal)" : "AWS Nitro";
        if (std::regex_match(product, instance_type)) facts.ec2_instance_type = product;
        return;
    }
    auto bios = read_trimmed(root, "/sys/class/dmi/id/bios_version");
    if (facts.vendor == "Xen" && bios && contains(to_lower(*bios), "amazon")) {
        facts.platform = "AWS Xen";
        facts.evidence.push_back("DMI bios_version '" + *bios + "'");
    }
}

}  // namespace

HypervisorFacts detect_hypervisor(const HypervisorInputs& inputs) {
    const SysRoot& root = inputs.root;
    HypervisorFacts facts;
    if (has_flag(inputs.flags, "svm"))
        facts.hardware_virtualization = "AMD-V";
    else if (has_flag(inputs.flags, "vmx"))
        facts.hardware_virtualization = "VT-x";
    facts.dmi_sys_vendor = read_trimmed(root, "/sys/class/dmi/id/sys_vendor");
    facts.dmi_product_name = read_trimmed(root, "/sys/class/dmi/id/product_name");
    const bool hypervisor_flag = has_flag(inputs.flags, "hypervisor");

    auto osrelease = root.read_line("/proc/sys/kernel/osrelease");
    if (osrelease && contains(*osrelease, "Microsoft")) {
        conclude(facts, "Windows Subsystem for Linux", "container",
                 "kernel osrelease names Microsoft");
    } else if (root.is_live() && inputs.cpuid.hypervisor_signature()) {
        const std::string signature = *inputs.cpuid.hypervisor_signature();
        conclude(facts, hypervisor_vendor_from_signature(signature), "full",
                 "CPUID leaf 0x40000000 signature '" + hypervisor_vendor_from_signature(signature) +
                     "'");
    } else if (detect_powerpc(root, facts) || detect_xen(root, hypervisor_flag, facts) ||
               detect_pci(root, facts) || detect_s390(root, facts)) {
        // concluded
    } else if (contains(inputs.model_name, "UML")) {
        conclude(facts, "User-mode Linux", "para", "model name mentions UML");
    } else if (!detect_dmi(facts) && hypervisor_flag) {
        conclude(facts, "unknown", "full", "CPU flag 'hypervisor' without a known vendor");
    }
    detect_platform(root, facts);
    return facts;
}

}  // namespace hostprobe::host
