#include "host/ec2_families.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "host/arm_parts.hpp"

using namespace hostprobe::host;

namespace {
bool lists_family(const std::vector<std::string>& families, const std::string& family) {
    return std::find(families.begin(), families.end(), family) != families.end();
}
std::vector<std::string> families_of(const std::string& model_name) {
    auto key = processor_key(model_name);
    REQUIRE_MESSAGE(key.has_value(), model_name);
    return Ec2FamilyTable::builtin().families_for_key(*key);
}
}  // namespace

TEST_CASE("the same key from cpuinfo model names and AWS processor names") {
    CHECK(processor_key("Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz") == "E5-2686 v4");
    CHECK(processor_key("Intel Xeon E5-2686 v4 (Broadwell)") == "E5-2686 v4");
    CHECK(processor_key("Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz") == "E5-2670");
    CHECK(processor_key("Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz") == "8259");
    CHECK(processor_key("Intel Xeon Platinum 8259 (Cascade Lake)") == "8259");
    CHECK(processor_key("Intel Xeon 8375C (Ice Lake)") == "8375");
    CHECK(processor_key("AMD EPYC 7R13 Processor") == "EPYC 7R13");
    CHECK(processor_key("AWS Graviton2 Processor") == "Graviton2");
    CHECK(processor_key("AWS Graviton Processor") == "Graviton");
    CHECK_FALSE(processor_key("Intel(R) Xeon(R) CPU @ 2.20GHz").has_value());
}

TEST_CASE("the seeds' machines map to the families that used them") {
    const auto broadwell = families_of("Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz");
    CHECK(lists_family(broadwell, "m4"));
    CHECK(lists_family(broadwell, "r4"));
    CHECK(lists_family(broadwell, "t2"));  // seed 000
    CHECK(broadwell.size() > 1);           // a set, never one answer
    CHECK(lists_family(families_of("Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz"), "m4"));
    CHECK(lists_family(families_of("Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz"), "m3"));
    CHECK(lists_family(families_of("Intel(R) Xeon(R) CPU E5-2666 v3 @ 2.90GHz"), "c4"));
    CHECK(lists_family(families_of("Intel(R) Xeon(R) Platinum 8124M CPU @ 3.00GHz"), "c5"));
    CHECK(lists_family(families_of("Intel(R) Xeon(R) Platinum 8175M CPU @ 2.50GHz"), "m5"));
    CHECK(lists_family(families_of("AMD EPYC 7R13 Processor"), "c6a"));
    const auto graviton2 = Ec2FamilyTable::builtin().families_for_key("Graviton2");
    CHECK(lists_family(graviton2, "t4g"));
    CHECK(lists_family(graviton2, "m6g"));
    const auto graviton3 = Ec2FamilyTable::builtin().families_for_key("Graviton3");
    for (const char* family : {"c7g", "m7g", "r7g", "c7gn", "hpc7g"})
        CHECK_MESSAGE(lists_family(graviton3, family), family);
    const auto graviton4 = Ec2FamilyTable::builtin().families_for_key("Graviton4");
    for (const char* family : {"c8g", "m8g", "r8g", "x8g", "i8g"})
        CHECK_MESSAGE(lists_family(graviton4, family), family);
    CHECK_FALSE(lists_family(graviton4, "c7g"));  // one generation's set, not every Graviton
    CHECK(lists_family(families_of("AWS Graviton3 Processor"), "c7g"));
}

TEST_CASE("the ARM parts table is util-linux's") {
    const ArmPartTable& table = ArmPartTable::builtin();
    CHECK(table.size() == 208);
    CHECK(table.implementer_name(0x41) == "ARM");
    CHECK(table.implementer_name(0xc0) == "Ampere");
    REQUIRE(table.find(0x41, 0xd0c) != nullptr);
    CHECK(table.find(0x41, 0xd0c)->name == "Neoverse-N1");
    REQUIRE(table.find(0x41, 0xd40) != nullptr);
    CHECK(table.find(0x41, 0xd40)->name == "Neoverse-V1");
    REQUIRE(table.find(0x41, 0xd4f) != nullptr);
    CHECK(table.find(0x41, 0xd4f)->name == "Neoverse-V2");
    CHECK(table.find(0x41, 0x123) == nullptr);
}
