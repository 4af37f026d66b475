#include "host/openssl_cpu.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "core/strings.hpp"
#include "core/utf8.hpp"

namespace hostprobe::host {

namespace {

using nlohmann::json;

// A bit of the capability vector: which word, which bit of it.
struct CapabilityBit {
    const char* name;
    size_t word;
    unsigned bit;
};

// OPENSSL_ia32cap(3): word 0 is CPUID.1:EDX | CPUID.1:ECX << 32, word 1 is
// CPUID.7.0:EBX | CPUID.7.0:ECX << 32 (so PCLMULQDQ, ECX bit 1, is bit 33; AES-NI, ECX bit 25,
// bit 57; VAES, leaf 7 ECX bit 9, is "#64+41").
constexpr std::array kIa32capBits = {
    CapabilityBit{"aes", 0, 57},     CapabilityBit{"pclmulqdq", 0, 33},
    CapabilityBit{"ssse3", 0, 41},   CapabilityBit{"movbe", 0, 54},
    CapabilityBit{"avx", 0, 60},     CapabilityBit{"avx2", 1, 5},
    CapabilityBit{"avx512f", 1, 16}, CapabilityBit{"sha_ni", 1, 29},
    CapabilityBit{"vaes", 1, 41},    CapabilityBit{"vpclmulqdq", 1, 42},
};

// crypto/arm_arch.h (OpenSSL 3.0): ARMV7_NEON 1<<0, ARMV8_AES 1<<2, ARMV8_SHA1 1<<3,
// ARMV8_SHA256 1<<4, ARMV8_PMULL 1<<5, ARMV8_SHA512 1<<6; named as arm64's /proc/cpuinfo
// Features spell them (SHA-256 is "sha2"; NEON is "asimd" there, "neon" on 32-bit ARM).
constexpr std::array kArmcapBits = {
    CapabilityBit{"aes", 0, 2},  CapabilityBit{"pmull", 0, 5}, CapabilityBit{"neon", 0, 0},
    CapabilityBit{"sha1", 0, 3}, CapabilityBit{"sha2", 0, 4},  CapabilityBit{"sha512", 0, 6},
};

constexpr std::string_view kEnvironmentMarker = " env:";
constexpr size_t kMaxIa32capWords = 5;  // OpenSSL 3.4's logical vectors LV0 to LV4
constexpr size_t kMaxCapabilityHexDigits = 16;

Error settings_error(std::string_view settings, const std::string& why) {
    return make_error(ErrorCode::parse_error,
                      "OpenSSL CPU settings '" + excerpt(settings) + "': " + why);
}

Result<uint64_t> capability_word(std::string_view text) {
    if (text.size() < 3 || text.substr(0, 2) != "0x" || text.size() > 2 + kMaxCapabilityHexDigits)
        return make_error(ErrorCode::parse_error, "'" + excerpt(text) + "' is not 0x and hex");
    return parse_uint64_auto_base(text);
}

template <typename Bits>
std::vector<OpensslCpuFeature> decode_capability_bits(const Bits& bits,
                                                      const std::vector<uint64_t>& words) {
    std::vector<OpensslCpuFeature> features;
    for (const auto& bit : bits) {
        if (bit.word >= words.size()) continue;  // OpenSSL did not report that word
        features.push_back({bit.name, ((words[bit.word] >> bit.bit) & 1U) != 0});
    }
    return features;
}

}  // namespace

const char* aes_hardware_name(AesHardware value) {
    switch (value) {
        case AesHardware::used: return "used";
        case AesHardware::masked: return "masked";
        case AesHardware::unused: return "unused";
        case AesHardware::absent: return "absent";
        case AesHardware::unknown: return "unknown";
    }
    return "unknown";
}

std::optional<AesHardware> aes_hardware_named(std::string_view name) {
    for (AesHardware value : {AesHardware::used, AesHardware::masked, AesHardware::unused,
                              AesHardware::absent, AesHardware::unknown}) {
        if (name == aes_hardware_name(value)) return value;
    }
    return std::nullopt;
}

bool OpensslCpu::uses(std::string_view feature) const {
    return std::any_of(features.begin(), features.end(), [&](const OpensslCpuFeature& decoded) {
        return decoded.name == feature && decoded.used;
    });
}

std::string OpensslCpu::aes_instructions() const {
    return is_x86() ? "AES-NI" : "the ARMv8 AES extension";
}

Result<OpensslCpu> parse_openssl_cpu_settings(std::string_view settings) {
    if (settings.size() > kMaxOpensslCpuSettings)
        return settings_error(settings, "longer than " + std::to_string(kMaxOpensslCpuSettings));
    OpensslCpu cpu;
    cpu.settings = valid_utf8(settings);
    // Each invalid byte becomes a 3-byte U+FFFD: the repaired text must fit too, or a result
    // holding it would not parse back (from_json parses `settings` again).
    if (cpu.settings.size() > kMaxOpensslCpuSettings)
        return settings_error(settings, "longer than " + std::to_string(kMaxOpensslCpuSettings) +
                                            " bytes once made valid UTF-8");
    std::string_view vector = settings;
    if (const size_t marker = settings.find(kEnvironmentMarker); marker != std::string::npos) {
        vector = settings.substr(0, marker);
        cpu.environment = valid_utf8(settings.substr(marker + kEnvironmentMarker.size()));
    }
    const size_t equals = vector.find('=');
    if (equals == std::string::npos) return settings_error(settings, "no '='");
    cpu.variable = std::string(vector.substr(0, equals));
    const bool x86 = cpu.variable == "OPENSSL_ia32cap";
    if (!x86 && cpu.variable != "OPENSSL_armcap")
        return settings_error(settings, "not OPENSSL_ia32cap or OPENSSL_armcap");
    const auto values = split(vector.substr(equals + 1), ':');
    if (values.size() > (x86 ? kMaxIa32capWords : 1))
        return settings_error(settings, std::to_string(values.size()) + " values");
    for (std::string_view value : values) {
        auto word = capability_word(value);
        if (!word) return settings_error(settings, word.error().message);
        cpu.words.push_back(*word);
    }
    cpu.features = x86 ? decode_capability_bits(kIa32capBits, cpu.words)
                       : decode_capability_bits(kArmcapBits, cpu.words);
    return cpu;
}

AesHardware judge_aes_hardware(const OpensslCpu& cpu,
                               const std::optional<std::vector<std::string>>& cpu_flags) {
    if (cpu.uses("aes")) return AesHardware::used;
    if (!cpu_flags) return AesHardware::unknown;
    if (std::find(cpu_flags->begin(), cpu_flags->end(), "aes") == cpu_flags->end())
        return AesHardware::absent;
    return cpu.environment ? AesHardware::masked : AesHardware::unused;
}

std::string openssl_cpu_summary(const OpensslCpu& cpu) {
    const std::string instructions = cpu.is_x86() ? "AES-NI" : "ARMv8 AES";
    return cpu.settings + " (" + instructions + ": " + aes_hardware_name(cpu.aes_hardware) + ")";
}

std::optional<std::string> read_openssl_cpu_settings() {
    const char* settings = OPENSSL_info(OPENSSL_INFO_CPU_SETTINGS);
    if (settings == nullptr || *settings == '\0') return std::nullopt;
    // One byte past the limit is enough for the parser to refuse an overlong string.
    return std::string(settings, strnlen(settings, kMaxOpensslCpuSettings + 1));
}

void to_json(json& out, const OpensslCpu& cpu) {
    json words = json::array();
    for (uint64_t word : cpu.words) {
        char hex[24];
        std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(word));
        words.push_back(hex);  // as text: a 64-bit value does not survive a JSON double
    }
    out = {{"settings", cpu.settings},
           {"variable", cpu.variable},
           {"words", std::move(words)},
           {"environment", cpu.environment ? json(*cpu.environment) : json(nullptr)},
           {"aes_hardware", aes_hardware_name(cpu.aes_hardware)}};
    for (const auto& feature : cpu.features)
        out[feature.name] = feature.used;
}

void from_json(const json& in, OpensslCpu& cpu) {
    auto parsed = parse_openssl_cpu_settings(in.at("settings").get<std::string>());
    if (!parsed) throw std::invalid_argument(parsed.error().message);
    cpu = std::move(*parsed);
    if (const auto found = in.find("aes_hardware"); found != in.end()) {
        const auto judged = aes_hardware_named(found->get<std::string>());
        if (!judged) throw std::invalid_argument("unknown aes_hardware " + found->dump());
        cpu.aes_hardware = *judged;
    }
}

}  // namespace hostprobe::host
