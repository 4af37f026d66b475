#include "probes/cipher/cipher_catalog.hpp"

#include <openssl/evp.h>

#include <algorithm>

#include "probes/cipher/openssl_error.hpp"

namespace hostprobe::probes {

const std::vector<std::string>& cipher_names() {
    static const std::vector<std::string> names = {"aes-128-gcm", "aes-256-gcm",      "aes-128-ctr",
                                                   "aes-256-ctr", "aes-128-cbc",      "aes-256-cbc",
                                                   "chacha20",    "chacha20-poly1305"};
    return names;
}

bool is_aead_cipher(const std::string& name) {
    return name == "aes-128-gcm" || name == "aes-256-gcm" || name == "chacha20-poly1305";
}

Result<EvpCipher> fetch_cipher(const std::string& name) {
    if (std::find(cipher_names().begin(), cipher_names().end(), name) == cipher_names().end()) {
        return make_error(ErrorCode::invalid_argument, "unknown cipher '" + name + "'");
    }
    EvpCipher cipher(EVP_CIPHER_fetch(nullptr, name.c_str(), nullptr));
    if (!cipher) {
        return make_error(ErrorCode::unavailable,
                          openssl_error(("OpenSSL has no cipher '" + name + "'").c_str()));
    }
    return cipher;
}

}  // namespace hostprobe::probes
