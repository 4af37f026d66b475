// Which hypervisor (if any) runs us, and the cloud platform behind it: lscpu's checks (CPUID
// when live, /proc/xen, PCI ids, s390 sysinfo, ppc device tree) plus /sys/hypervisor and DMI,
// where "Amazon EC2" means a Nitro host.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sysroot.hpp"
#include "host/cpuid.hpp"

namespace hostprobe::host {

struct HypervisorFacts {
    std::optional<std::string> vendor;               // "Xen", "KVM", ...; unset on bare metal
    std::optional<std::string> virtualization_type;  // "full", "para", "none", "container"
    std::optional<std::string> platform;  // "AWS Nitro", "AWS Xen", "AWS Nitro (bare metal)"
    std::optional<std::string> hardware_virtualization;  // "VT-x"/"AMD-V" from the CPU flags
    std::optional<std::string> dmi_sys_vendor;
    std::optional<std::string> dmi_product_name;
    std::optional<std::string> ec2_instance_type;  // DMI product_name on Nitro ("m5.large")
    std::vector<std::string> evidence;             // what each conclusion rests on
};

struct HypervisorInputs {
    const SysRoot& root;
    const CpuidSource& cpuid;
    std::string flags;       // the default CPU type's flags, space separated
    std::string model_name;  // for User-mode Linux
};

HypervisorFacts detect_hypervisor(const HypervisorInputs& inputs);

}  // namespace hostprobe::host
