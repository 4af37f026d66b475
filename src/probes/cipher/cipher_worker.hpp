// One thread of a cipher measurement: its own context, key, IV and aligned buffer, and a timed
// loop in one of three shapes:
//   stream       one context fed block after block (openssl speed -evp's EVP_Update_loop; what
//                OpenSSL 1.x speed did for every cipher and 3.x still does for CTR and ChaCha20)
//   message      each block a whole AEAD message: key and IV set again, data, final (what
//                OpenSSL 3.x speed -evp does for GCM, EVP_Update_loop_aead_enc)
//   aead_record  each block a TLS-like record: fresh IV, 13 bytes of AAD, data, final and tag
//                (openssl speed -aead)
#pragma once

#include <openssl/evp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "probes/common/start_gate.hpp"

namespace hostprobe::probes {

enum class CipherMode { stream, message, aead_record };

// The names the `mode` param and the result use: stream, message, aead-record.
std::string cipher_mode_name(CipherMode mode);
std::optional<CipherMode> cipher_mode_named(std::string_view name);

struct CipherJob {
    const EVP_CIPHER* cipher = nullptr;
    bool aead = false;
    size_t block_bytes = 0;
    CipherMode mode = CipherMode::stream;
    bool decrypt = false;
    std::atomic<uint64_t>* bytes_done = nullptr;  // a run's running total, for its series
};

struct ThreadMeasurement {
    uint64_t ops = 0;
    double cpu_seconds = 0;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point finished;
    std::string error;  // empty when it worked
};

ThreadMeasurement run_cipher_thread(const CipherJob& job, StartGate& gate, std::stop_token stop);

}  // namespace hostprobe::probes
