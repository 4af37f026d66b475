#include "host/microarch.hpp"

#include <array>

namespace hostprobe::host {

namespace {

struct ModelRange {
    uint32_t family;
    uint32_t first_model;
    uint32_t last_model;
    uint32_t first_stepping;
    uint32_t last_stepping;
    const char* name;
    const char* codename;
};

constexpr uint32_t kAnyStepping = 0xff;

// Intel: family 6 model numbers from Intel's SDM and the kernel's intel-family.h.
constexpr std::array kIntel = {
    ModelRange{6, 0x0f, 0x0f, 0, kAnyStepping, "Core", "Merom"},
    ModelRange{6, 0x16, 0x16, 0, kAnyStepping, "Core", "Merom-L"},
    ModelRange{6, 0x17, 0x17, 0, kAnyStepping, "Penryn", ""},
    ModelRange{6, 0x1d, 0x1d, 0, kAnyStepping, "Penryn", "Dunnington"},
    ModelRange{6, 0x1a, 0x1a, 0, kAnyStepping, "Nehalem", "Nehalem-EP"},
    ModelRange{6, 0x1e, 0x1f, 0, kAnyStepping, "Nehalem", ""},
    ModelRange{6, 0x2e, 0x2e, 0, kAnyStepping, "Nehalem", "Nehalem-EX"},
    ModelRange{6, 0x25, 0x25, 0, kAnyStepping, "Westmere", ""},
    ModelRange{6, 0x2c, 0x2c, 0, kAnyStepping, "Westmere", "Westmere-EP"},
    ModelRange{6, 0x2f, 0x2f, 0, kAnyStepping, "Westmere", "Westmere-EX"},
    ModelRange{6, 0x2a, 0x2a, 0, kAnyStepping, "Sandy Bridge", ""},
    ModelRange{6, 0x2d, 0x2d, 0, kAnyStepping, "Sandy Bridge", "Sandy Bridge-EP"},
    ModelRange{6, 0x3a, 0x3a, 0, kAnyStepping, "Ivy Bridge", ""},
    ModelRange{6, 0x3e, 0x3e, 0, kAnyStepping, "Ivy Bridge", "Ivy Bridge-EP"},
    ModelRange{6, 0x3c, 0x3c, 0, kAnyStepping, "Haswell", ""},
    ModelRange{6, 0x45, 0x46, 0, kAnyStepping, "Haswell", ""},
    ModelRange{6, 0x3f, 0x3f, 0, kAnyStepping, "Haswell", "Haswell-EP"},
    ModelRange{6, 0x3d, 0x3d, 0, kAnyStepping, "Broadwell", ""},
    ModelRange{6, 0x47, 0x47, 0, kAnyStepping, "Broadwell", ""},
    ModelRange{6, 0x4f, 0x4f, 0, kAnyStepping, "Broadwell", "Broadwell-EP"},
    ModelRange{6, 0x56, 0x56, 0, kAnyStepping, "Broadwell", "Broadwell-DE"},
    ModelRange{6, 0x4e, 0x4e, 0, kAnyStepping, "Skylake", ""},
    ModelRange{6, 0x5e, 0x5e, 0, kAnyStepping, "Skylake", ""},
    // Model 0x55 spans three server generations, told apart by stepping.
    ModelRange{6, 0x55, 0x55, 0, 4, "Skylake", "Skylake-SP"},
    ModelRange{6, 0x55, 0x55, 5, 7, "Cascade Lake", "Cascade Lake-SP"},
    ModelRange{6, 0x55, 0x55, 10, 11, "Cooper Lake", "Cooper Lake-SP"},
    ModelRange{6, 0x8e, 0x8e, 0, 9, "Kaby Lake", ""},
    ModelRange{6, 0x8e, 0x8e, 10, 10, "Kaby Lake", "Kaby Lake R"},
    ModelRange{6, 0x8e, 0x8e, 11, 11, "Whiskey Lake", ""},
    ModelRange{6, 0x8e, 0x8e, 12, kAnyStepping, "Comet Lake", ""},
    ModelRange{6, 0x9e, 0x9e, 0, 9, "Kaby Lake", ""},
    ModelRange{6, 0x9e, 0x9e, 10, kAnyStepping, "Coffee Lake", ""},
    ModelRange{6, 0xa5, 0xa6, 0, kAnyStepping, "Comet Lake", ""},
    ModelRange{6, 0x66, 0x66, 0, kAnyStepping, "Cannon Lake", ""},
    ModelRange{6, 0x7d, 0x7e, 0, kAnyStepping, "Ice Lake", ""},
    ModelRange{6, 0x6a, 0x6a, 0, kAnyStepping, "Ice Lake", "Ice Lake-SP"},
    ModelRange{6, 0x6c, 0x6c, 0, kAnyStepping, "Ice Lake", "Ice Lake-D"},
    ModelRange{6, 0x8c, 0x8d, 0, kAnyStepping, "Tiger Lake", ""},
    ModelRange{6, 0xa7, 0xa7, 0, kAnyStepping, "Rocket Lake", ""},
    ModelRange{6, 0x97, 0x97, 0, kAnyStepping, "Alder Lake", ""},
    ModelRange{6, 0x9a, 0x9a, 0, kAnyStepping, "Alder Lake", ""},
    ModelRange{6, 0xbe, 0xbe, 0, kAnyStepping, "Alder Lake", "Alder Lake-N"},
    ModelRange{6, 0xb7, 0xb7, 0, kAnyStepping, "Raptor Lake", ""},
    ModelRange{6, 0xba, 0xba, 0, kAnyStepping, "Raptor Lake", ""},
    ModelRange{6, 0xbf, 0xbf, 0, kAnyStepping, "Raptor Lake", ""},
    ModelRange{6, 0xaa, 0xac, 0, kAnyStepping, "Meteor Lake", ""},
    ModelRange{6, 0xbd, 0xbd, 0, kAnyStepping, "Lunar Lake", ""},
    ModelRange{6, 0xc5, 0xc6, 0, kAnyStepping, "Arrow Lake", ""},
    ModelRange{6, 0xcc, 0xcc, 0, kAnyStepping, "Panther Lake", ""},
    ModelRange{6, 0x8f, 0x8f, 0, kAnyStepping, "Sapphire Rapids", ""},
    ModelRange{6, 0xcf, 0xcf, 0, kAnyStepping, "Emerald Rapids", ""},
    ModelRange{6, 0xad, 0xae, 0, kAnyStepping, "Granite Rapids", ""},
    ModelRange{6, 0xaf, 0xaf, 0, kAnyStepping, "Sierra Forest", ""},
    ModelRange{6, 0xdd, 0xdd, 0, kAnyStepping, "Clearwater Forest", ""},
    ModelRange{6, 0x57, 0x57, 0, kAnyStepping, "Knights Landing", ""},
    ModelRange{6, 0x85, 0x85, 0, kAnyStepping, "Knights Mill", ""},
    ModelRange{6, 0x5c, 0x5c, 0, kAnyStepping, "Goldmont", ""},
    ModelRange{6, 0x5f, 0x5f, 0, kAnyStepping, "Goldmont", "Denverton"},
    ModelRange{6, 0x7a, 0x7a, 0, kAnyStepping, "Goldmont Plus", ""},
    ModelRange{6, 0x86, 0x86, 0, kAnyStepping, "Tremont", "Snow Ridge"},
    ModelRange{6, 0x96, 0x96, 0, kAnyStepping, "Tremont", "Elkhart Lake"},
    ModelRange{6, 0x9c, 0x9c, 0, kAnyStepping, "Tremont", "Jasper Lake"},
    ModelRange{15, 0x00, 0xff, 0, kAnyStepping, "NetBurst", ""},
};

// AMD: families 0x15-0x1a by model range (AMD's revision guides, the kernel's amd_nb.c).
constexpr std::array kAmd = {
    ModelRange{0x10, 0x00, 0xff, 0, kAnyStepping, "K10", ""},
    ModelRange{0x12, 0x00, 0xff, 0, kAnyStepping, "K10", "Llano"},
    ModelRange{0x14, 0x00, 0xff, 0, kAnyStepping, "Bobcat", ""},
    ModelRange{0x15, 0x00, 0x01, 0, kAnyStepping, "Bulldozer", ""},
    ModelRange{0x15, 0x02, 0x1f, 0, kAnyStepping, "Piledriver", ""},
    ModelRange{0x15, 0x30, 0x3f, 0, kAnyStepping, "Steamroller", ""},
    ModelRange{0x15, 0x60, 0x7f, 0, kAnyStepping, "Excavator", ""},
    ModelRange{0x16, 0x00, 0x0f, 0, kAnyStepping, "Jaguar", ""},
    ModelRange{0x16, 0x30, 0x3f, 0, kAnyStepping, "Puma", ""},
    ModelRange{0x17, 0x01, 0x01, 0, kAnyStepping, "Zen", "Naples"},
    ModelRange{0x17, 0x00, 0x07, 0, kAnyStepping, "Zen", ""},
    ModelRange{0x17, 0x08, 0x0f, 0, kAnyStepping, "Zen+", "Pinnacle Ridge"},
    ModelRange{0x17, 0x11, 0x11, 0, kAnyStepping, "Zen", "Raven Ridge"},
    ModelRange{0x17, 0x18, 0x18, 0, kAnyStepping, "Zen+", "Picasso"},
    ModelRange{0x17, 0x20, 0x2f, 0, kAnyStepping, "Zen", "Dali"},
    ModelRange{0x17, 0x31, 0x31, 0, kAnyStepping, "Zen 2", "Rome"},
    ModelRange{0x17, 0x30, 0x3f, 0, kAnyStepping, "Zen 2", ""},
    ModelRange{0x17, 0x47, 0x47, 0, kAnyStepping, "Zen 2", ""},
    ModelRange{0x17, 0x60, 0x6f, 0, kAnyStepping, "Zen 2", "Renoir"},
    ModelRange{0x17, 0x70, 0x7f, 0, kAnyStepping, "Zen 2", "Matisse"},
    ModelRange{0x17, 0x84, 0x84, 0, kAnyStepping, "Zen 2", ""},
    ModelRange{0x17, 0x90, 0xaf, 0, kAnyStepping, "Zen 2", ""},
    ModelRange{0x19, 0x01, 0x01, 0, kAnyStepping, "Zen 3", "Milan"},
    ModelRange{0x19, 0x00, 0x0f, 0, kAnyStepping, "Zen 3", ""},
    ModelRange{0x19, 0x11, 0x11, 0, kAnyStepping, "Zen 4", "Genoa"},
    ModelRange{0x19, 0x10, 0x1f, 0, kAnyStepping, "Zen 4", ""},
    ModelRange{0x19, 0x20, 0x2f, 0, kAnyStepping, "Zen 3", "Vermeer"},
    ModelRange{0x19, 0x30, 0x3f, 0, kAnyStepping, "Zen 3", ""},
    ModelRange{0x19, 0x40, 0x4f, 0, kAnyStepping, "Zen 3+", "Rembrandt"},
    ModelRange{0x19, 0x50, 0x5f, 0, kAnyStepping, "Zen 3", "Cezanne"},
    ModelRange{0x19, 0x60, 0x6f, 0, kAnyStepping, "Zen 4", "Raphael"},
    ModelRange{0x19, 0x70, 0x7f, 0, kAnyStepping, "Zen 4", "Phoenix"},
    ModelRange{0x19, 0xa0, 0xaf, 0, kAnyStepping, "Zen 4", "Bergamo"},
    ModelRange{0x1a, 0x00, 0x0f, 0, kAnyStepping, "Zen 5", "Turin"},
    ModelRange{0x1a, 0x10, 0x1f, 0, kAnyStepping, "Zen 5", "Turin Dense"},
    ModelRange{0x1a, 0x20, 0x2f, 0, kAnyStepping, "Zen 5", "Strix Point"},
    ModelRange{0x1a, 0x40, 0x4f, 0, kAnyStepping, "Zen 5", "Granite Ridge"},
    ModelRange{0x1a, 0x60, 0x7f, 0, kAnyStepping, "Zen 5", ""},
};

template <typename Table>
std::optional<Microarchitecture> find_in(const Table& table, uint32_t family, uint32_t model,
                                         uint32_t stepping) {
    for (const auto& row : table) {
        if (row.family == family && model >= row.first_model && model <= row.last_model &&
            stepping >= row.first_stepping &&
            (row.last_stepping == kAnyStepping || stepping <= row.last_stepping)) {
            return Microarchitecture{row.name, row.codename};
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<Microarchitecture> x86_microarchitecture(std::string_view vendor_id, uint32_t family,
                                                       uint32_t model, uint32_t stepping) {
    if (vendor_id == "GenuineIntel") return find_in(kIntel, family, model, stepping);
    if (vendor_id == "AuthenticAMD") return find_in(kAmd, family, model, stepping);
    if (vendor_id == "HygonGenuine" && family == 0x18) return Microarchitecture{"Zen", "Dhyana"};
    return std::nullopt;
}

std::optional<std::string> graviton_generation(uint32_t implementer, uint32_t part) {
    if (implementer != 0x41) return std::nullopt;
    switch (part) {
        case 0xd08: return "Graviton";
        case 0xd0c: return "Graviton2";
        case 0xd40: return "Graviton3";
        case 0xd4f: return "Graviton4";
        default: return std::nullopt;
    }
}

}  // namespace hostprobe::host
