#include "host/openssl_cpu.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::host;

namespace {

// What OpenSSL 3.0.22 (Debian bookworm) gives on the AMD EPYC with AES-NI, AVX-512, VAES and SHA-NI
// the tests were written on, without and with OPENSSL_ia32cap=~0x200000000000000.
constexpr const char* kEpycSettings = "OPENSSL_ia32cap=0xfed83203178bffff:0x18005f42f1bb03a9";
constexpr const char* kEpycMaskedSettings =
    "OPENSSL_ia32cap=0xfcd83203178bffff:0x0 env:~0x200000000000000";

OpensslCpu parsed_settings(const std::string& settings) {
    auto cpu = parse_openssl_cpu_settings(settings);
    REQUIRE_MESSAGE(cpu.ok(), settings);
    return *cpu;
}

bool feature_decoded(const OpensslCpu& cpu, const std::string& name) {
    for (const auto& feature : cpu.features) {
        if (feature.name == name) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("OpenSSL 3.0's x86 settings: both words decoded, AES-NI bit 57") {
    const OpensslCpu cpu = parsed_settings(kEpycSettings);
    CHECK(cpu.variable == "OPENSSL_ia32cap");
    CHECK(cpu.is_x86());
    REQUIRE(cpu.words.size() == 2);
    CHECK(cpu.words[0] == 0xfed83203178bffffULL);
    CHECK(cpu.words[1] == 0x18005f42f1bb03a9ULL);
    CHECK_FALSE(cpu.environment);
    for (const char* used : {"aes", "pclmulqdq", "ssse3", "movbe", "avx", "avx2", "avx512f",
                             "sha_ni", "vaes", "vpclmulqdq"}) {
        CHECK_MESSAGE(cpu.uses(used), used);
    }
    CHECK_FALSE(cpu.uses("pmull"));  // an ARM name: not decoded from an x86 vector
    CHECK_FALSE(feature_decoded(cpu, "pmull"));
    CHECK(cpu.aes_instructions() == "AES-NI");
}

TEST_CASE("OpenSSL 3.0's x86 settings with AES-NI masked by the environment") {
    const OpensslCpu cpu = parsed_settings(kEpycMaskedSettings);
    CHECK_FALSE(cpu.uses("aes"));
    CHECK(cpu.uses("pclmulqdq"));
    CHECK_FALSE(cpu.uses("avx2"));  // OpenSSL zeroes the second word when ':' is missing
    REQUIRE(cpu.environment);
    CHECK(*cpu.environment == "~0x200000000000000");
    CHECK(cpu.settings == kEpycMaskedSettings);
}

TEST_CASE("OpenSSL 3.4's five zero-padded x86 words are read too") {
    const OpensslCpu cpu = parsed_settings(
        "OPENSSL_ia32cap=0x7ed8320b078bffff:0x00000000219c07ab:0x0000000000000000:"
        "0x0000000000000000:0x0000000000000000");
    CHECK(cpu.words.size() == 5);
    CHECK(cpu.uses("aes"));
    CHECK(cpu.uses("sha_ni"));
    CHECK_FALSE(cpu.uses("vaes"));
}

TEST_CASE("ARM settings: armcap bits from crypto/arm_arch.h") {
    // NEON, AES, SHA1, SHA256, PMULL and CPUID: what a Neoverse N1 (Graviton2) reports.
    const OpensslCpu cpu = parsed_settings("OPENSSL_armcap=0xbd");
    CHECK(cpu.variable == "OPENSSL_armcap");
    CHECK_FALSE(cpu.is_x86());
    REQUIRE(cpu.words.size() == 1);
    for (const char* used : {"neon", "aes", "sha1", "sha2", "pmull"})
        CHECK_MESSAGE(cpu.uses(used), used);
    CHECK_FALSE(cpu.uses("sha512"));
    CHECK(parsed_settings("OPENSSL_armcap=0x7d").uses("sha512"));
    CHECK_FALSE(feature_decoded(cpu, "avx2"));

    const OpensslCpu masked = parsed_settings("OPENSSL_armcap=0x1 env:0x1");
    CHECK(masked.uses("neon"));
    CHECK_FALSE(masked.uses("aes"));
    CHECK_FALSE(masked.uses("pmull"));
    REQUIRE(masked.environment);
    CHECK(*masked.environment == "0x1");
}

TEST_CASE("malformed and overlong OpenSSL CPU settings are refused") {
    for (const char* bad :
         {"", "OPENSSL_ia32cap", "OPENSSL_ia32cap=", "OPENSSL_ia32cap=0x", "OPENSSL_ia32cap=12",
          "OPENSSL_ia32cap=0xzz", "OPENSSL_ia32cap=0x1:", "OPENSSL_ia32cap=0x1::0x2",
          "OPENSSL_ia32cap=0x1:0x2:0x3:0x4:0x5:0x6", "OPENSSL_ia32cap=0x12345678901234567",
          "OPENSSL_armcap=0x1:0x2", "OPENSSL_s390xcap=stfle:0x1", "OPENSSL_armcap=-0x1",
          "OPENSSL_armcap=0x1env:0x1"}) {
        CHECK_FALSE_MESSAGE(parse_openssl_cpu_settings(bad).ok(), bad);
    }
    const std::string overlong =
        "OPENSSL_ia32cap=0x1 env:" + std::string(kMaxOpensslCpuSettings, '~');
    CHECK_FALSE(parse_openssl_cpu_settings(overlong).ok());
    // Short enough as bytes, too long once each invalid byte is a U+FFFD (found by fuzzing).
    const std::string invalid_bytes =
        "OPENSSL_ia32cap=0xff:0x0 env:" + std::string(kMaxOpensslCpuSettings / 2, '\xff');
    REQUIRE(invalid_bytes.size() <= kMaxOpensslCpuSettings);
    CHECK_FALSE(parse_openssl_cpu_settings(invalid_bytes).ok());
    // The environment's text is OpenSSL's copy of a variable: any bytes, kept as valid UTF-8.
    const OpensslCpu odd = parsed_settings("OPENSSL_armcap=0x4 env:\xff zz env:x");
    CHECK(*odd.environment == "\xEF\xBF\xBD zz env:x");
    CHECK(odd.uses("aes"));
}

TEST_CASE("AES used, masked, unused, absent or unknown from OpenSSL's bits and the CPU's flags") {
    const std::vector<std::string> with_aes = {"sse2", "aes", "avx2"};
    const std::vector<std::string> without_aes = {"sse2", "avx2"};
    CHECK(judge_aes_hardware(parsed_settings(kEpycSettings), with_aes) == AesHardware::used);
    CHECK(judge_aes_hardware(parsed_settings(kEpycSettings), std::nullopt) == AesHardware::used);
    const OpensslCpu masked = parsed_settings(kEpycMaskedSettings);
    CHECK(judge_aes_hardware(masked, with_aes) == AesHardware::masked);
    CHECK(judge_aes_hardware(masked, without_aes) == AesHardware::absent);
    CHECK(judge_aes_hardware(masked, std::nullopt) == AesHardware::unknown);
    const OpensslCpu no_variable = parsed_settings("OPENSSL_ia32cap=0xfcd83203178bffff:0x0");
    CHECK(judge_aes_hardware(no_variable, with_aes) == AesHardware::unused);
    CHECK(judge_aes_hardware(parsed_settings("OPENSSL_armcap=0x1 env:0x1"),
                             std::vector<std::string>{"fp", "asimd", "aes", "pmull"}) ==
          AesHardware::masked);
}

TEST_CASE("OpenSSL CPU JSON: decoded fields, hex words, and read back by parsing the settings") {
    OpensslCpu cpu = parsed_settings(kEpycMaskedSettings);
    cpu.aes_hardware = AesHardware::masked;
    const nlohmann::json as_json = cpu;
    CHECK(as_json["settings"] == kEpycMaskedSettings);
    CHECK(as_json["variable"] == "OPENSSL_ia32cap");
    CHECK(as_json["words"] == nlohmann::json{"0xfcd83203178bffff", "0x0000000000000000"});
    CHECK(as_json["environment"] == "~0x200000000000000");
    CHECK(as_json["aes"] == false);
    CHECK(as_json["pclmulqdq"] == true);
    CHECK(as_json["aes_hardware"] == "masked");
    const auto back = as_json.get<OpensslCpu>();
    CHECK(back.words == cpu.words);
    CHECK(back.aes_hardware == AesHardware::masked);
    CHECK(openssl_cpu_summary(back) == std::string(kEpycMaskedSettings) + " (AES-NI: masked)");

    nlohmann::json damaged = as_json;
    damaged["settings"] = "OPENSSL_ia32cap=nonsense";
    CHECK_THROWS(damaged.get<OpensslCpu>());
    damaged = as_json;
    damaged["aes_hardware"] = "sometimes";
    CHECK_THROWS(damaged.get<OpensslCpu>());
}

TEST_CASE("this process's OpenSSL gives settings that parse") {
    const auto settings = read_openssl_cpu_settings();
#if defined(__x86_64__) || defined(__aarch64__)
    REQUIRE(settings);
    const auto cpu = parse_openssl_cpu_settings(*settings);
    REQUIRE_MESSAGE(cpu.ok(), *settings);
    CHECK_FALSE(cpu->features.empty());
#endif
}
