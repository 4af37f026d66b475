// Microarchitecture from CPU identity: Intel and AMD by family/model (and stepping where one
// model number spans generations), ARM by implementer/part. A guess from public tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hostprobe::host {

struct Microarchitecture {
    std::string name;      // generation: "Broadwell", "Cascade Lake", "Zen 3", "Neoverse-N1"
    std::string codename;  // where it adds something: "Broadwell-EP", "Milan", "Graviton2"
};

std::optional<Microarchitecture> x86_microarchitecture(std::string_view vendor_id, uint32_t family,
                                                       uint32_t model, uint32_t stepping);

// AWS Graviton generation implied by an ARM implementer/part ("Graviton2"), if any.
std::optional<std::string> graviton_generation(uint32_t implementer, uint32_t part);

}  // namespace hostprobe::host
