// Whether the cipher run's AES ran on the CPU's AES instructions: OpenSSL's CPU settings for the
// result, and the sentence the explanation gains when AES ran without them.
#pragma once

#include <optional>
#include <string>

#include "host/openssl_cpu.hpp"
#include "probes/cipher/cipher_result.hpp"
#include "runs/probe.hpp"

namespace hostprobe::probes {

// This process's OpenSSL settings; the CPU's flags are compared only on the live machine (a
// replayed dump describes another CPU than the one that ran the ciphers).
std::optional<host::OpensslCpu> measured_openssl_cpu(const runs::ProbeContext& context);

// Empty unless an AES cipher was measured and OpenSSL ran it without the AES instructions.
std::string aes_hardware_note(const CipherResult& result);

}  // namespace hostprobe::probes
