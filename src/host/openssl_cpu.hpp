// What OpenSSL's CPU dispatch runs with: OPENSSL_info(OPENSSL_INFO_CPU_SETTINGS), the
// capability vector OpenSSL chose its AES, GHASH and SHA code paths from after applying
// OPENSSL_ia32cap / OPENSSL_armcap. A masked AES-NI (or ARMv8 AES) makes TLS several times
// slower on a CPU that has it, so the vector is parsed into named features and compared with
// /proc/cpuinfo's flags.
//
// The string, as OpenSSL's crypto/info.c writes it (after its "CPUINFO: " prefix):
//   x86, 3.0 to 3.3:  "OPENSSL_ia32cap=0x%llx:0x%llx"           (2 words)
//   x86, 3.4 on:      "OPENSSL_ia32cap=0x%.16llx:..." 5 times      (5 words)
//   ARM (32 and 64):  "OPENSSL_armcap=0x%x"
// followed by " env:<the variable's value>" when the environment sets it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::host {

struct OpensslCpuFeature {
    std::string name;  // as /proc/cpuinfo spells the flag ("aes", "pclmulqdq", "pmull", ...)
    bool used = false;
};

// Whether OpenSSL runs AES on the CPU's AES instructions, and if not, why.
enum class AesHardware {
    used,
    masked,   // the CPU has them, the OPENSSL_ia32cap/OPENSSL_armcap environment variable hid them
    unused,   // the CPU has them, OpenSSL does not use them, no variable is set
    absent,   // the CPU (or its hypervisor) does not offer them
    unknown,  // not used, and the CPU's flags are unknown (a replayed dump, no flags line)
};

const char* aes_hardware_name(AesHardware value);
std::optional<AesHardware> aes_hardware_named(std::string_view name);

struct OpensslCpu {
    std::string settings;                     // OpenSSL's string (invalid UTF-8 replaced)
    std::string variable;                     // "OPENSSL_ia32cap" or "OPENSSL_armcap"
    std::vector<uint64_t> words;              // the capability vector's values, in order
    std::optional<std::string> environment;   // the variable's value, when it is set
    std::vector<OpensslCpuFeature> features;  // the decoded bits that matter for ciphers
    AesHardware aes_hardware = AesHardware::unknown;

    bool is_x86() const { return variable == "OPENSSL_ia32cap"; }
    bool uses(std::string_view feature) const;
    // "AES-NI" or "the ARMv8 AES extension", for sentences.
    std::string aes_instructions() const;
};

// Longer than any OpenSSL writes (3.0: 128 bytes; 3.4: 256 on x86 and ARM).
inline constexpr size_t kMaxOpensslCpuSettings = 512;

// Pure: parses OpenSSL's string for either architecture, whatever machine runs it.
// `aes_hardware` is left unknown (see judge_aes_hardware).
Result<OpensslCpu> parse_openssl_cpu_settings(std::string_view settings);

// `cpu_flags` are /proc/cpuinfo's flags (x86) or Features (ARM) of the machine OpenSSL runs on,
// none when they are not known (a replayed dump describes another machine).
AesHardware judge_aes_hardware(const OpensslCpu& cpu,
                               const std::optional<std::vector<std::string>>& cpu_flags);

// One line for text reports: "OPENSSL_ia32cap=0x...:0x... (AES-NI: used)".
std::string openssl_cpu_summary(const OpensslCpu& cpu);

// This process's OpenSSL: none when it gives no settings (a build without CPU detection, or an
// architecture whose string is not parsed here, such as s390x).
std::optional<std::string> read_openssl_cpu_settings();

// {"settings", "variable", "words" (hex strings), "environment", "aes_hardware", and one boolean
// per decoded feature}. from_json parses "settings" again, so the decoded fields always agree.
void to_json(nlohmann::json& out, const OpensslCpu& cpu);
void from_json(const nlohmann::json& in, OpensslCpu& cpu);

}  // namespace hostprobe::host
