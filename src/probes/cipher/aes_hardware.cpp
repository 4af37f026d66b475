#include "probes/cipher/aes_hardware.hpp"

#include <algorithm>

namespace hostprobe::probes {

namespace {

bool measured_aes(const std::vector<CipherCell>& cells) {
    return std::any_of(cells.begin(), cells.end(),
                       [](const CipherCell& cell) { return cell.cipher.rfind("aes", 0) == 0; });
}

// Why AES ran without the instructions, as a clause after "AES ran without AES-NI".
std::string aes_hardware_reason(const host::OpensslCpu& cpu) {
    const std::string settings = "OpenSSL's settings: " + cpu.settings;
    switch (cpu.aes_hardware) {
        case host::AesHardware::masked: {
            std::string reason = ": " + cpu.variable + "=" + cpu.environment.value_or("") +
                                 " in the environment masks it, although the CPU has it "
                                 "(/proc/cpuinfo lists aes)";
            // OpenSSL 3.0 zeroes the extended word when the variable has no ':' part.
            if (cpu.is_x86() && cpu.environment &&
                cpu.environment->find(':') == std::string::npos && cpu.words.size() > 1 &&
                cpu.words[1] == 0) {
                reason += "; having no ':' part, it also turns off AVX2, AVX-512 and VAES";
            }
            return reason;
        }
        case host::AesHardware::unused:
            return " although the CPU has it (/proc/cpuinfo lists aes; " + settings + ")";
        case host::AesHardware::absent:
            return ", which the CPU does not offer (/proc/cpuinfo does not list aes; a hypervisor "
                   "can hide it; " +
                   settings + ")";
        case host::AesHardware::used:
        case host::AesHardware::unknown: break;
    }
    return " (" + settings + ")";
}

}  // namespace

std::optional<host::OpensslCpu> measured_openssl_cpu(const runs::ProbeContext& context) {
    const auto settings = host::read_openssl_cpu_settings();
    if (!settings) return std::nullopt;
    auto cpu = host::parse_openssl_cpu_settings(*settings);
    if (!cpu) return std::nullopt;
    std::optional<std::vector<std::string>> flags;
    const host::CpuType* type = context.host.default_type();
    if (context.root.is_live() && type && !type->flags.empty()) flags = type->flags;
    cpu->aes_hardware = host::judge_aes_hardware(*cpu, flags);
    return std::move(*cpu);
}

std::string aes_hardware_note(const CipherResult& result) {
    const auto& cpu = result.openssl_cpu;
    if (!cpu || cpu->aes_hardware == host::AesHardware::used || !measured_aes(result.measurements))
        return "";
    // "About 10 times": OpenSSL 3.0.22's openssl speed -evp at 16 KiB blocks on an AMD EPYC with
    // AES-NI and VAES, with and without OPENSSL_ia32cap=~0x200000000000000: aes-128-gcm 4.5 against
    // 0.50 GB/s, aes-256-gcm 4.3 against 0.35, aes-128-ctr 10.1 against 0.53.
    return "AES ran without " + cpu->aes_instructions() + aes_hardware_reason(*cpu) +
           ". OpenSSL's AES is about 10 times slower without it at large blocks: a common cause of "
           "slow TLS.";
}

}  // namespace hostprobe::probes
