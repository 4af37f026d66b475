#include "probes/cipher/openssl_error.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>

namespace hostprobe::probes {

std::string openssl_error(const char* what) {
    (void)OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, nullptr);
    char reason[256] = "no details";
    const unsigned long code = ERR_get_error();
    if (code != 0) ERR_error_string_n(code, reason, sizeof reason);
    return std::string(what) + ": " + reason;
}

}  // namespace hostprobe::probes
