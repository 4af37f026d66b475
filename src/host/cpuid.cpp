#include "host/cpuid.hpp"

#include <cstring>

#include "core/strings.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace hostprobe::host {

std::optional<std::string> LiveCpuid::hypervisor_signature() const {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & (1u << 31)) == 0) {
        return std::nullopt;  // bit 31 of ECX: "running under a hypervisor"
    }
    __cpuid(0x40000000, eax, ebx, ecx, edx);
    char signature[13] = {};
    std::memcpy(signature + 0, &ebx, 4);
    std::memcpy(signature + 4, &ecx, 4);
    std::memcpy(signature + 8, &edx, 4);
    return std::string(signature, 12);
#else
    return std::nullopt;
#endif
}

std::string hypervisor_vendor_from_signature(const std::string& signature) {
    struct Known {
        const char* prefix;
        const char* vendor;
    };
    static constexpr Known kKnown[] = {
        {"XenVMMXenVMM", "Xen"},       {"KVMKVMKVM", "KVM"},       {"Linux KVM Hv", "KVM"},
        {"Microsoft Hv", "Microsoft"}, {"VMwareVMware", "VMware"}, {"VBoxVBoxVBox", "Oracle"},
        {"prl hyperv", "Parallels"},   {"bhyve bhyve", "bhyve"},   {"TCGTCGTCGTCG", "QEMU"},
        {"ACRNACRNACRN", "ACRN"},      {"QNXQVMBSQG", "QNX"},      {"EVMMEVMMEVMM", "Intel EVMM"},
    };
    for (const auto& known : kKnown) {
        if (signature.rfind(known.prefix, 0) == 0) return known.vendor;
    }
    std::string printable;
    for (char c : signature) {
        if (c >= 0x20 && c < 0x7f) printable += c;
    }
    return std::string(trim(printable));
}

}  // namespace hostprobe::host
