// ARM "CPU implementer" / "CPU part" ids to names, from util-linux's lscpu-arm.c tables
// (src/host/data/arm_parts.csv; see src/host/data/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hostprobe::host {

struct ArmPart {
    uint32_t implementer = 0;
    std::string implementer_name;
    uint32_t part = 0;
    std::string name;        // "Neoverse-N1"
    std::string cloud_note;  // hostprobe's annotation: which cloud processors use this part
};

class ArmPartTable {
  public:
    // The table compiled into the binary; parsed once, immutable afterwards.
    static const ArmPartTable& builtin();

    std::optional<std::string> implementer_name(uint32_t implementer) const;
    const ArmPart* find(uint32_t implementer, uint32_t part) const;
    size_t size() const { return parts_.size(); }

  private:
    std::vector<ArmPart> parts_;
};

}  // namespace hostprobe::host
