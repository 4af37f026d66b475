// The cipher probe's ciphers compute the right bytes on this build's architecture, not just fast
// ones: CI runs this on arm64 under qemu-user too (tests/README.md, "arm64 under emulation"),
// where OpenSSL runs the AArch64 code it picks by the CPU's AT_HWCAP (AES, PMULL, NEON).
#include <doctest/doctest.h>
#include <openssl/evp.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "probes/cipher/cipher_catalog.hpp"

using namespace hostprobe::probes;

namespace {

struct EvpContextDeleter {
    void operator()(EVP_CIPHER_CTX* context) const { EVP_CIPHER_CTX_free(context); }
};

std::string known_answer_hex(const unsigned char* bytes, size_t size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < size; ++i) {
        text += kDigits[bytes[i] >> 4];
        text += kDigits[bytes[i] & 0xf];
    }
    return text;
}

std::vector<unsigned char> known_answer_bytes(const std::string& hex) {
    std::vector<unsigned char> bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        bytes.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return bytes;
}

struct Sealed {
    std::vector<unsigned char> ciphertext;
    std::string tag_hex;  // empty for ciphers without a tag
};

Sealed known_answer_seal(const std::string& name, const std::vector<unsigned char>& key,
                         const std::vector<unsigned char>& iv,
                         const std::vector<unsigned char>& plaintext) {
    auto cipher = fetch_cipher(name);
    REQUIRE(cipher.ok());
    std::unique_ptr<EVP_CIPHER_CTX, EvpContextDeleter> context(EVP_CIPHER_CTX_new());
    REQUIRE(context);
    REQUIRE(static_cast<size_t>(EVP_CIPHER_get_key_length(cipher->get())) == key.size());
    REQUIRE(static_cast<size_t>(EVP_CIPHER_get_iv_length(cipher->get())) == iv.size());
    REQUIRE(EVP_EncryptInit_ex2(context.get(), cipher->get(), key.data(), iv.data(), nullptr) == 1);
    Sealed sealed;
    sealed.ciphertext.resize(plaintext.size() + 16);
    int length = 0;
    int final_length = 0;
    REQUIRE(EVP_EncryptUpdate(context.get(), sealed.ciphertext.data(), &length, plaintext.data(),
                              static_cast<int>(plaintext.size())) == 1);
    REQUIRE(EVP_EncryptFinal_ex(context.get(), sealed.ciphertext.data() + length, &final_length) ==
            1);
    sealed.ciphertext.resize(static_cast<size_t>(length + final_length));
    if (is_aead_cipher(name)) {
        std::array<unsigned char, 16> tag{};
        REQUIRE(EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
        sealed.tag_hex = known_answer_hex(tag.data(), tag.size());
    }
    return sealed;
}

std::string known_answer_sha256(const std::vector<unsigned char>& bytes) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    REQUIRE(EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) ==
            1);
    return known_answer_hex(digest.data(), size);
}

}  // namespace

TEST_CASE("cipher known answers: AES-128-CTR's NIST SP 800-38A F.5.1 first block") {
    const Sealed sealed =
        known_answer_seal("aes-128-ctr", known_answer_bytes("2b7e151628aed2a6abf7158809cf4f3c"),
                          known_answer_bytes("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
                          known_answer_bytes("6bc1bee22e409f96e93d7e117393172a"));
    CHECK(known_answer_hex(sealed.ciphertext.data(), sealed.ciphertext.size()) ==
          "874d6191b620e3261bef6864990db6ce");
}

TEST_CASE("cipher known answers: 1 KiB through each measured cipher's bulk path") {
    // Key 00 01 .. 1f (its first 16 bytes for AES-128), IV a0 a1 .. (12 or 16 bytes), plaintext
    // byte i = 7i mod 251. The answers are OpenSSL 3.0's on x86-64 (AES-NI, AVX): another
    // architecture's assembly must agree byte for byte.
    struct Case {
        const char* cipher;
        size_t key_bytes;
        size_t iv_bytes;
        const char* ciphertext_sha256;
        const char* tag;
    };
    const Case cases[] = {
        {"aes-128-gcm", 16, 12, "f8c89f0dfb34b10a28d649e2e54c3d4cb83752879e5f3e26dc7684675f1c14fb",
         "571c2a6c8dcf0f13b36c23c52ae75dde"},
        {"aes-128-ctr", 16, 16, "e6d7b5fa4ae04660f5a73fb2a828ec0a932adb274e517e926aa974b06e25c7cd",
         ""},
        {"chacha20", 32, 16, "d969c2b3925109a9ed727fa49dee537edb31f05805b2f3e87a3e9afaa712d52f",
         ""},
        {"chacha20-poly1305", 32, 12,
         "5cf6757fad1cf5f3a89abdc2d266e712ef3120fe3a95fe670285b3465390b020",
         "808db7ddb2ba0995887437623d300259"},
    };
    std::vector<unsigned char> plaintext(1024);
    for (size_t i = 0; i < plaintext.size(); ++i)
        plaintext[i] = static_cast<unsigned char>(i * 7 % 251);
    for (const Case& known : cases) {
        INFO(known.cipher);
        std::vector<unsigned char> key(known.key_bytes);
        for (size_t i = 0; i < key.size(); ++i)
            key[i] = static_cast<unsigned char>(i);
        std::vector<unsigned char> iv(known.iv_bytes);
        for (size_t i = 0; i < iv.size(); ++i)
            iv[i] = static_cast<unsigned char>(0xa0 + i);
        const Sealed sealed = known_answer_seal(known.cipher, key, iv, plaintext);
        CHECK(sealed.ciphertext.size() == plaintext.size());
        CHECK(known_answer_sha256(sealed.ciphertext) == known.ciphertext_sha256);
        CHECK(sealed.tag_hex == known.tag);
    }
}
