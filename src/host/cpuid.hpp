// The x86 CPUID hypervisor leaf, behind an interface: only the live machine can answer it, so
// sysroot replays (and non-x86 builds) use NoCpuid.
#pragma once

#include <optional>
#include <string>

namespace hostprobe::host {

class CpuidSource {
  public:
    virtual ~CpuidSource() = default;
    // The 12-byte vendor signature of leaf 0x40000000 ("XenVMMXenVMM"), when CPUID says a
    // hypervisor is present.
    virtual std::optional<std::string> hypervisor_signature() const = 0;
};

class LiveCpuid final : public CpuidSource {
  public:
    std::optional<std::string> hypervisor_signature() const override;
};

class NoCpuid final : public CpuidSource {
  public:
    std::optional<std::string> hypervisor_signature() const override { return std::nullopt; }
};

// lscpu's vendor name for a signature ("KVM" for "KVMKVMKVM\0\0\0"); the raw text otherwise.
std::string hypervisor_vendor_from_signature(const std::string& signature);

}  // namespace hostprobe::host
