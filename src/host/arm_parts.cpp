#include "host/arm_parts.hpp"

#include "core/csv.hpp"
#include "core/strings.hpp"
#include "data/arm_parts.hpp"

namespace hostprobe::host {

namespace {

std::vector<ArmPart> load_parts() {
    std::vector<ArmPart> parts;
    const auto rows = parse_csv(kArmPartsCsv);
    for (size_t i = 1; i < rows.size(); ++i) {  // row 0 is the header
        const CsvRow& row = rows[i];
        if (row.size() < 6) continue;
        auto implementer = parse_uint64_auto_base(row[0]);
        auto part = parse_uint64_auto_base(row[2]);
        if (!implementer || !part) continue;
        parts.push_back(ArmPart{static_cast<uint32_t>(*implementer), row[1],
                                static_cast<uint32_t>(*part), row[3], row[5]});
    }
    return parts;
}

}  // namespace

const ArmPartTable& ArmPartTable::builtin() {
    static const ArmPartTable table = [] {
        ArmPartTable loaded;
        loaded.parts_ = load_parts();
        return loaded;
    }();
    return table;
}

std::optional<std::string> ArmPartTable::implementer_name(uint32_t implementer) const {
    for (const auto& part : parts_) {
        if (part.implementer == implementer) return part.implementer_name;
    }
    return std::nullopt;
}

const ArmPart* ArmPartTable::find(uint32_t implementer, uint32_t part) const {
    for (const auto& entry : parts_) {
        if (entry.implementer == implementer && entry.part == part) return &entry;
    }
    return nullptr;
}

}  // namespace hostprobe::host
