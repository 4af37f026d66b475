// The ciphers the cipher probe measures, by the names `openssl speed -evp` takes.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::probes {

const std::vector<std::string>& cipher_names();
bool is_aead_cipher(const std::string& name);

struct EvpCipherDeleter {
    void operator()(EVP_CIPHER* cipher) const { EVP_CIPHER_free(cipher); }
};
using EvpCipher = std::unique_ptr<EVP_CIPHER, EvpCipherDeleter>;

// Fetched once per measurement from the default provider (what openssl speed does).
Result<EvpCipher> fetch_cipher(const std::string& name);

}  // namespace hostprobe::probes
