// cpp-httplib's shared library loads every OpenSSL error string from a static initialiser,
// OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS), before
// main, whether or not the agent ever serves TLS: it reads OpenSSL's configuration and fills
// a table from every libcrypto module, 1.5 MiB resident in every idle agent (issue 29).
// The executable comes first in the dynamic linker's search, so this definition takes that
// call, and only that one, and hands every other to libssl's own: a TLS listener's first
// SSL_CTX_new initialises libssl as it always did (OPENSSL_INIT_LOAD_SSL_STRINGS), and the
// cipher probe loads libcrypto's strings when it has an error to word
// (probes/cipher/openssl_error).
// Linked into the agent and the unit tests only (CMakeLists.txt), never into hostprobe_core:
// a library must not replace OpenSSL's functions for whoever links it.
#include <dlfcn.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include <cstdint>

extern "C" int OPENSSL_init_ssl(uint64_t options, const OPENSSL_INIT_SETTINGS* settings) {
    constexpr uint64_t kHttplibStaticInitialiser =
        OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS;
    if (options == kHttplibStaticInitialiser && settings == nullptr) return 1;
    using Initialiser = int (*)(uint64_t, const OPENSSL_INIT_SETTINGS*);
    static const auto libssl_initialiser =
        reinterpret_cast<Initialiser>(dlsym(RTLD_NEXT, "OPENSSL_init_ssl"));
    return libssl_initialiser != nullptr ? libssl_initialiser(options, settings) : 0;
}
