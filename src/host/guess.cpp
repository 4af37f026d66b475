#include "host/guess.hpp"

#include "core/strings.hpp"
#include "host/ec2_families.hpp"
#include "host/microarch.hpp"

namespace hostprobe::host {

namespace {

void guess_x86(const CpuType& cpu, HostGuess& guess) {
    const auto family = parse_id(cpu.family, IdBase::decimal);
    const auto model = parse_id(cpu.model, IdBase::decimal);
    const auto stepping = parse_id(cpu.stepping, IdBase::decimal);
    if (cpu.vendor_id && family && model) {
        if (auto uarch =
                x86_microarchitecture(*cpu.vendor_id, *family, *model, stepping.value_or(0))) {
            guess.microarchitecture = uarch->name;
            if (!uarch->codename.empty()) guess.codename = uarch->codename;
        }
    }
    if (!guess.microarchitecture) {
        guess.notes.push_back("microarchitecture unknown for vendor " +
                              cpu.vendor_id.value_or("?") + " family " + cpu.family.value_or("?") +
                              " model " + cpu.model.value_or("?"));
    }
}

void guess_arm(const CpuType& cpu, HostGuess& guess) {
    const ArmIdentity& arm = *cpu.arm;
    if (cpu.model_name) guess.microarchitecture = cpu.model_name;
    if (arm.part) {
        if (auto generation = graviton_generation(arm.implementer, *arm.part)) {
            guess.graviton = *generation;
            guess.codename = "AWS " + *generation;
        }
    }
    if (arm.cloud_note) guess.notes.push_back(*arm.cloud_note);
}

void guess_families(const CpuType& cpu, const HypervisorFacts& hypervisor, HostGuess& guess) {
    if (hypervisor.ec2_instance_type) {
        const std::string& type = *hypervisor.ec2_instance_type;
        guess.ec2_families = {type.substr(0, type.find('.'))};
        guess.notes.push_back("EC2 instance type " + type + " read from DMI product_name");
        return;
    }
    std::optional<std::string> key;
    if (guess.graviton)
        key = *guess.graviton;
    else if (cpu.model_name)
        key = processor_key(*cpu.model_name);
    if (key) guess.ec2_families = Ec2FamilyTable::builtin().families_for_key(*key);
    if (guess.ec2_families.empty()) {
        guess.notes.push_back("no EC2 instance family is known to use this processor");
        return;
    }
    guess.notes.push_back(
        "ec2_families is a guess: every EC2 family known to use this processor (" + *key +
        "); several families share one CPU, so the CPU alone cannot name the instance type");
}

}  // namespace

HostGuess guess_host(const CpuType& cpu, const HypervisorFacts& hypervisor) {
    HostGuess guess;
    if (cpu.arm) {
        guess_arm(cpu, guess);
    } else {
        guess_x86(cpu, guess);
    }
    guess_families(cpu, hypervisor, guess);
    return guess;
}

}  // namespace hostprobe::host
