#include "host/cpu_types.hpp"

#include "core/strings.hpp"
#include "host/arm_parts.hpp"

namespace hostprobe::host {

namespace {

void decode_arm(const RawCpuType& raw, CpuType& type) {
    const auto implementer = parse_id(raw.vendor, IdBase::prefixed_hex);
    if (!implementer || *implementer == 0) return;
    const ArmPartTable& table = ArmPartTable::builtin();
    ArmIdentity identity;
    identity.implementer = *implementer;
    identity.part = parse_id(raw.model, IdBase::prefixed_hex);
    identity.variant = parse_id(raw.stepping, IdBase::any);
    identity.revision = parse_id(raw.revision, IdBase::any);
    // RISC-V's mvendorid also looks like "0x489": only known implementers are ARM ids.
    auto name = table.implementer_name(*implementer);
    if (!name) return;
    type.vendor_id = *name;
    if (identity.part) {
        if (const ArmPart* part = table.find(*implementer, *identity.part)) {
            type.model_name = part->name;
            if (!part->cloud_note.empty()) identity.cloud_note = part->cloud_note;
        }
    }
    if (*implementer == 0x41 && identity.variant && identity.revision) {
        type.stepping =
            "r" + std::to_string(*identity.variant) + "p" + std::to_string(*identity.revision);
    }
    type.arm = identity;
}

}  // namespace

CpuType decode_cpu_type(const RawCpuType& raw) {
    CpuType type;
    type.vendor_id = raw.vendor;
    type.model_name = raw.model_name;
    type.family = raw.family;
    type.model = raw.revision ? raw.revision : raw.model;
    type.stepping = raw.stepping;
    type.flags_line = raw.flags;
    if (raw.flags) {
        for (std::string_view flag : split_whitespace(*raw.flags))
            type.flags.emplace_back(flag);
    }
    type.bogomips = raw.bogomips;
    type.mhz = raw.mhz;
    type.microcode = raw.microcode;
    type.address_sizes = raw.address_sizes;
    type.max_thread_id = raw.max_thread_id;
    // Only ARM (and RISC-V's mvendorid) write the vendor as a hex id.
    if (raw.vendor && raw.vendor->rfind("0x", 0) == 0) decode_arm(raw, type);
    return type;
}

std::vector<CpuType> build_cpu_types(const SysRoot& root, const Cpuinfo& cpuinfo,
                                     const CpuSet& possible) {
    std::vector<CpuType> types;
    for (const RawCpuType& raw : cpuinfo.types)
        types.push_back(decode_cpu_type(raw));
    if (types.empty()) return types;
    for (size_t cpu : possible.members()) {
        auto it = cpuinfo.cpu_type.find(cpu);
        types[it == cpuinfo.cpu_type.end() ? 0 : it->second].cpus.push_back(cpu);
    }
    for (CpuType& type : types) {
        type.topology = read_type_topology(root, type.cpus, type.max_thread_id);
    }
    return types;
}

}  // namespace hostprobe::host
