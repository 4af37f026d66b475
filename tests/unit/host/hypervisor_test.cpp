#include "host/hypervisor.hpp"

#include <doctest/doctest.h>

#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::host;
using hostprobe::testing::TempTree;

namespace {

class FakeCpuid final : public CpuidSource {
  public:
    explicit FakeCpuid(std::optional<std::string> signature) : signature_(std::move(signature)) {}
    std::optional<std::string> hypervisor_signature() const override { return signature_; }

  private:
    std::optional<std::string> signature_;
};

HypervisorFacts detect(const std::string& root, const std::string& flags,
                       const CpuidSource& cpuid = NoCpuid()) {
    return detect_hypervisor(HypervisorInputs{SysRoot(root), cpuid, flags, ""});
}

}  // namespace

TEST_CASE("bare metal: no vendor, but the CPU's own virtualization extension") {
    TempTree tree;
    tree.mkdir("proc");
    const auto facts = detect(tree.root(), "fpu vmx lm");
    CHECK_FALSE(facts.vendor.has_value());
    CHECK_FALSE(facts.virtualization_type.has_value());
    CHECK(facts.hardware_virtualization == "VT-x");
    CHECK(detect(tree.root(), "fpu svm").hardware_virtualization == "AMD-V");
}

TEST_CASE("Xen on EC2 before Nitro: /sys/hypervisor, HVM flag, Amazon BIOS") {
    TempTree tree;
    tree.write("sys/hypervisor/type", "xen\n")
        .write("sys/class/dmi/id/bios_version", "4.2.amazon\n");
    const auto hvm = detect(tree.root(), "fpu hypervisor");
    CHECK(hvm.vendor == "Xen");
    CHECK(hvm.virtualization_type == "full");
    CHECK(hvm.platform == "AWS Xen");
    CHECK(detect(tree.root(), "fpu").virtualization_type == "para");
    tree.write("proc/xen/capabilities", "control_d\n");
    CHECK(detect(tree.root(), "fpu").virtualization_type == "none");
}

TEST_CASE("Nitro: DMI says Amazon EC2 and names the instance type") {
    TempTree tree;
    tree.write("sys/class/dmi/id/sys_vendor", "Amazon EC2\n")
        .write("sys/class/dmi/id/product_name", "m6g.large\n");
    const auto arm = detect(tree.root(), "fp asimd");  // no hypervisor flag on arm64
    CHECK(arm.vendor == "KVM");
    CHECK(arm.virtualization_type == "full");
    CHECK(arm.platform == "AWS Nitro");
    CHECK(arm.ec2_instance_type == "m6g.large");

    tree.write("sys/class/dmi/id/product_name", "c5.metal\n");
    const auto metal = detect(tree.root(), "fpu vmx");
    CHECK_FALSE(metal.vendor.has_value());
    CHECK(metal.platform == "AWS Nitro (bare metal)");
    CHECK(metal.ec2_instance_type == "c5.metal");
}

TEST_CASE("live CPUID names the hypervisor first") {
    TempTree tree;
    tree.write("sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
    const FakeCpuid kvm(std::string("KVMKVMKVM\0\0\0", 12));
    // Only a live root may use CPUID: a dump cannot answer it.
    const auto from_dump = detect(tree.root(), "hypervisor", kvm);
    CHECK(from_dump.evidence.front().find("CPUID") == std::string::npos);
    const auto live = detect_hypervisor(HypervisorInputs{SysRoot("/"), kvm, "hypervisor", ""});
    CHECK(live.vendor == "KVM");
    CHECK(live.virtualization_type == "full");
    CHECK(hypervisor_vendor_from_signature("XenVMMXenVMM") == "Xen");
    CHECK(hypervisor_vendor_from_signature("Microsoft Hv") == "Microsoft");
    CHECK(hypervisor_vendor_from_signature("VBoxVBoxVBox") == "Oracle");
    CHECK(hypervisor_vendor_from_signature(std::string("Odd\0Vendor\0\0", 12)) == "OddVendor");
}

TEST_CASE("PCI ids and an unknown hypervisor") {
    TempTree tree;
    tree.write("proc/bus/pci/devices", "0000\t80861237\t0\n0010\t15ad0710\t0\n");
    CHECK(detect(tree.root(), "fpu").vendor == "VMware");
    TempTree other;
    other.mkdir("proc");
    const auto unknown = detect(other.root(), "fpu hypervisor");
    CHECK(unknown.vendor == "unknown");
    CHECK(unknown.virtualization_type == "full");
}
