#include "probes/cipher/cipher_catalog.hpp"

#include <openssl/err.h>

#include <algorithm>

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
        char reason[256] = "no details";
        ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
        return make_error(ErrorCode::unavailable,
                          "OpenSSL has no cipher '" + name + "': " + reason);
    }
    return cipher;
}

}  // namespace hostprobe::probes
