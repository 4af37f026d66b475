// OpenSSL's CPU settings in the cipher result: the JSON round trip, the report's line and the
// explanation's sentence when AES ran without the CPU's AES instructions.
#include "probes/cipher/aes_hardware.hpp"

#include <doctest/doctest.h>

#include "core/strings.hpp"
#include "probes/cipher/speed_report.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;

namespace {

CipherResult cipher_result_with(const std::string& cipher, const std::string& settings,
                                host::AesHardware judged) {
    CipherResult result;
    result.measurements = {CipherCell{.cipher = cipher,
                                      .block_bytes = 16384,
                                      .threads = 1,
                                      .bytes_per_second = 5e8,
                                      .cpu_bytes_per_second = 5e8}};
    auto cpu = host::parse_openssl_cpu_settings(settings);
    REQUIRE(cpu.ok());
    cpu->aes_hardware = judged;
    result.openssl_cpu = *cpu;
    return result;
}

constexpr const char* kMaskedX86 = "OPENSSL_ia32cap=0xfcd83203178bffff:0x0 env:~0x200000000000000";

}  // namespace

TEST_CASE("AES masked by OPENSSL_ia32cap: the explanation says so and what it costs") {
    const std::string note =
        aes_hardware_note(cipher_result_with("aes-128-gcm", kMaskedX86, host::AesHardware::masked));
    CHECK(contains(note, "AES ran without AES-NI"));
    CHECK(contains(note, "OPENSSL_ia32cap=~0x200000000000000 in the environment masks it"));
    CHECK(contains(note, "although the CPU has it"));
    CHECK(contains(note, "it also turns off AVX2, AVX-512 and VAES"));
    CHECK(contains(note, "about 10 times slower"));
    CHECK(contains(note, "a common cause of slow TLS"));
}

TEST_CASE("AES without the instructions: absent, unused and unknown are told apart") {
    const std::string absent =
        aes_hardware_note(cipher_result_with("aes-256-gcm", kMaskedX86, host::AesHardware::absent));
    CHECK(contains(absent, "which the CPU does not offer"));
    CHECK_FALSE(contains(absent, "masks"));
    const std::string unused = aes_hardware_note(cipher_result_with(
        "aes-128-ctr", "OPENSSL_ia32cap=0xfcd83203178bffff:0x0", host::AesHardware::unused));
    CHECK(contains(unused,
                   "although the CPU has it (/proc/cpuinfo lists aes; OpenSSL's settings: "
                   "OPENSSL_ia32cap=0xfcd83203178bffff:0x0)"));
    const std::string arm = aes_hardware_note(
        cipher_result_with("aes-128-gcm", "OPENSSL_armcap=0x1 env:0x1", host::AesHardware::masked));
    CHECK(contains(arm,
                   "AES ran without the ARMv8 AES extension: OPENSSL_armcap=0x1 in the "
                   "environment masks it"));
    CHECK_FALSE(contains(arm, "AVX2"));
    const std::string unknown = aes_hardware_note(
        cipher_result_with("aes-128-gcm", "OPENSSL_armcap=0x1", host::AesHardware::unknown));
    CHECK(contains(unknown,
                   "AES ran without the ARMv8 AES extension (OpenSSL's settings: "
                   "OPENSSL_armcap=0x1)"));
}

TEST_CASE("no AES sentence when AES used the instructions or no AES cipher was measured") {
    CHECK(aes_hardware_note(
              cipher_result_with("aes-128-gcm",
                                 "OPENSSL_ia32cap=0xfed83203178bffff:0x18005f42f1bb03a9",
                                 host::AesHardware::used))
              .empty());
    CHECK(aes_hardware_note(cipher_result_with("chacha20", kMaskedX86, host::AesHardware::masked))
              .empty());
    CipherResult without_settings =
        cipher_result_with("aes-128-gcm", kMaskedX86, host::AesHardware::masked);
    without_settings.openssl_cpu.reset();
    CHECK(aes_hardware_note(without_settings).empty());
}

TEST_CASE("the cipher result keeps OpenSSL's CPU settings through JSON and shows them") {
    const CipherResult original =
        cipher_result_with("aes-128-gcm", kMaskedX86, host::AesHardware::masked);
    const nlohmann::json written = original;
    CHECK(written["openssl_cpu"]["settings"] == kMaskedX86);
    CHECK(written["openssl_cpu"]["aes"] == false);
    CHECK(written["openssl_cpu"]["aes_hardware"] == "masked");
    const auto restored = written.get<CipherResult>();
    REQUIRE(restored.openssl_cpu);
    CHECK(restored.openssl_cpu->aes_hardware == host::AesHardware::masked);
    CHECK_FALSE(restored.openssl_cpu->uses("aes"));
    CHECK(contains(speed_report(restored),
                   std::string("OpenSSL CPU: ") + kMaskedX86 + " (AES-NI: masked)\n"));

    nlohmann::json older = written;
    older.erase("openssl_cpu");
    CHECK_FALSE(older.get<CipherResult>().openssl_cpu);
    nlohmann::json damaged = written;
    damaged["openssl_cpu"]["settings"] = 7;
    CHECK_THROWS(damaged.get<CipherResult>());
}
