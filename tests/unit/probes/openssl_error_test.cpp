#include "probes/cipher/openssl_error.hpp"

#include <doctest/doctest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include <string>

using hostprobe::probes::openssl_error;

TEST_CASE("an OpenSSL error is worded with its library and reason, and taken off the queue") {
    ERR_clear_error();
    EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, "no-such-cipher", nullptr);
    REQUIRE(cipher == nullptr);
    const std::string text = openssl_error("fetching no-such-cipher");
    CHECK(text.rfind("fetching no-such-cipher: error:", 0) == 0);
    CHECK(text.find("digital envelope routines::unsupported") != std::string::npos);
    CHECK(ERR_peek_error() == 0);
}

TEST_CASE("with no OpenSSL error queued the wording says there are no details") {
    ERR_clear_error();
    CHECK(openssl_error("encryption") == "encryption: no details");
}

TEST_CASE("OpenSSL initialisations other than cpp-httplib's static one still reach libssl") {
    // The unit tests link src/app/openssl_string_deferral.cpp as the agent does: a TLS
    // listener's SSL_CTX_new asks for the SSL strings alone, and must get them.
    CHECK(OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS, nullptr) == 1);
    const char* reason =
        ERR_reason_error_string(ERR_PACK(ERR_LIB_SSL, 0, SSL_R_WRONG_VERSION_NUMBER));
    REQUIRE(reason != nullptr);
    CHECK(std::string(reason) == "wrong version number");
    CHECK(OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS,
                           nullptr) == 1);
}
