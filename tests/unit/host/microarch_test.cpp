#include "host/microarch.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::host;

namespace {
std::string uarch(const char* vendor, uint32_t family, uint32_t model, uint32_t stepping = 0) {
    auto found = x86_microarchitecture(vendor, family, model, stepping);
    return found ? found->name : "?";
}
}  // namespace

TEST_CASE("Intel generations from Sandy Bridge to Granite Rapids") {
    CHECK(uarch("GenuineIntel", 6, 45) == "Sandy Bridge");
    CHECK(uarch("GenuineIntel", 6, 62) == "Ivy Bridge");       // E5-2670 v2
    CHECK(uarch("GenuineIntel", 6, 63) == "Haswell");          // E5-2676 v3, E5-2666 v3
    CHECK(uarch("GenuineIntel", 6, 79) == "Broadwell");        // E5-2686 v4
    CHECK(uarch("GenuineIntel", 6, 85, 4) == "Skylake");       // Platinum 8124M / 8175M
    CHECK(uarch("GenuineIntel", 6, 85, 7) == "Cascade Lake");  // 8259CL / 8275CL
    CHECK(uarch("GenuineIntel", 6, 85, 11) == "Cooper Lake");
    CHECK(uarch("GenuineIntel", 6, 106) == "Ice Lake");  // 8375C
    CHECK(uarch("GenuineIntel", 6, 143) == "Sapphire Rapids");
    CHECK(uarch("GenuineIntel", 6, 207) == "Emerald Rapids");
    CHECK(uarch("GenuineIntel", 6, 173) == "Granite Rapids");
    CHECK(x86_microarchitecture("GenuineIntel", 6, 85, 4)->codename == "Skylake-SP");
    CHECK(x86_microarchitecture("GenuineIntel", 6, 79, 1)->codename == "Broadwell-EP");
    CHECK(uarch("GenuineIntel", 6, 0xfe) == "?");
}

TEST_CASE("AMD Zen through Zen 5") {
    CHECK(uarch("AuthenticAMD", 23, 1) == "Zen");     // EPYC 7571 / 7451 (Naples)
    CHECK(uarch("AuthenticAMD", 23, 49) == "Zen 2");  // EPYC 7R32 (Rome)
    CHECK(uarch("AuthenticAMD", 25, 1) == "Zen 3");   // EPYC 7R13 (Milan)
    CHECK(uarch("AuthenticAMD", 25, 17) == "Zen 4");  // EPYC 9R14 (Genoa)
    CHECK(uarch("AuthenticAMD", 26, 2) == "Zen 5");   // Turin
    CHECK(x86_microarchitecture("AuthenticAMD", 25, 1, 1)->codename == "Milan");
    CHECK(uarch("AuthenticAMD", 21, 2) == "Piledriver");  // Opteron 6328
}

TEST_CASE("Graviton generations from ARM parts") {
    CHECK(graviton_generation(0x41, 0xd0c) == "Graviton2");
    CHECK(graviton_generation(0x41, 0xd40) == "Graviton3");
    CHECK(graviton_generation(0x41, 0xd4f) == "Graviton4");
    CHECK(graviton_generation(0x41, 0xd08) == "Graviton");
    CHECK_FALSE(graviton_generation(0x48, 0xd40).has_value());  // HiSilicon's 0xd40 is no Graviton
}
