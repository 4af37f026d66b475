#include "probes/cipher/cipher_worker.hpp"

#include <openssl/rand.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "probes/cipher/openssl_error.hpp"
#include "probes/common/aligned_buffer.hpp"

namespace hostprobe::probes {

namespace {

struct ContextDeleter {
    void operator()(EVP_CIPHER_CTX* context) const { EVP_CIPHER_CTX_free(context); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, ContextDeleter>;

constexpr size_t kTagBytes = 16;
constexpr size_t kAadBytes = 13;  // a TLS record header, as openssl speed -aead uses
constexpr int kIvBytes = 12;      // the AEAD nonce length openssl speed sets

double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// Everything one thread needs, set up before the start gate so that set-up is not timed.
struct ThreadState {
    CipherContext context{EVP_CIPHER_CTX_new()};
    AlignedBuffer data;
    AlignedBuffer output;  // aead-record decrypt reads a fixed record and writes here
    unsigned char key[64] = {};
    unsigned char iv[16] = {};
    unsigned char aad[kAadBytes] = {};
    unsigned char tag[kTagBytes] = {};
};

// One AEAD message or record. `rekey` sets the key again (message mode), `aad` feeds the record
// header first (aead-record mode). The calls mirror openssl speed's loops, which leave the tag in
// the context; `keep_tag` copies it out (needed once, to prepare decryption).
bool seal(ThreadState& state, size_t bytes, bool rekey, bool aad, bool keep_tag = false) {
    int length = 0;
    EVP_CIPHER_CTX* context = state.context.get();
    if (rekey && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, kIvBytes, nullptr) != 1)
        return false;
    return EVP_CipherInit_ex(context, nullptr, nullptr, rekey ? state.key : nullptr, state.iv, 1) ==
               1 &&
           (!aad || EVP_CipherUpdate(context, nullptr, &length, state.aad, kAadBytes) == 1) &&
           EVP_CipherUpdate(context, state.data.get(), &length, state.data.get(),
                            static_cast<int>(bytes)) == 1 &&
           EVP_CipherFinal_ex(context, state.data.get() + length, &length) == 1 &&
           (!keep_tag ||
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, kTagBytes, state.tag) == 1);
}

bool open(ThreadState& state, size_t bytes, bool rekey, bool aad) {
    int length = 0;
    EVP_CIPHER_CTX* context = state.context.get();
    if (rekey && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, kIvBytes, nullptr) != 1)
        return false;
    return EVP_CipherInit_ex(context, nullptr, nullptr, rekey ? state.key : nullptr, state.iv, 0) ==
               1 &&
           (!aad || EVP_CipherUpdate(context, nullptr, &length, state.aad, kAadBytes) == 1) &&
           EVP_CipherUpdate(context, state.output.get(), &length, state.data.get(),
                            static_cast<int>(bytes)) == 1 &&
           EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, kTagBytes, state.tag) == 1 &&
           EVP_CipherFinal_ex(context, state.output.get() + length, &length) == 1;
}

std::string set_up(const CipherJob& job, ThreadState& state) {
    if (!state.context) return "cannot allocate a cipher context";
    state.data = aligned_buffer(job.block_bytes + kTagBytes + 64, 64);
    state.output = aligned_buffer(job.block_bytes + kTagBytes + 64, 64);
    if (!state.data || !state.output)
        return "cannot allocate " + std::to_string(job.block_bytes) + " bytes";
    if (RAND_bytes(state.key, sizeof state.key) != 1 ||
        RAND_bytes(state.iv, sizeof state.iv) != 1) {
        return openssl_error("RAND_bytes");
    }
    const bool whole_messages = job.mode != CipherMode::stream;
    const bool encrypt_first = whole_messages || !job.decrypt;
    if (EVP_CipherInit_ex2(state.context.get(), job.cipher, state.key, state.iv,
                           encrypt_first ? 1 : 0, nullptr) != 1) {
        return openssl_error("cipher init");
    }
    // Decrypting messages needs a genuine message and tag to authenticate.
    if (whole_messages && job.decrypt &&
        !seal(state, job.block_bytes, job.mode == CipherMode::message,
              job.mode == CipherMode::aead_record, true)) {
        return openssl_error("sealing the message to decrypt");
    }
    return "";
}

// One operation: a block through the stream (in place, like EVP_Update_loop), or one message.
bool operate(const CipherJob& job, ThreadState& state) {
    if (job.mode != CipherMode::stream) {
        const bool rekey = job.mode == CipherMode::message;
        const bool aad = job.mode == CipherMode::aead_record;
        return job.decrypt ? open(state, job.block_bytes, rekey, aad)
                           : seal(state, job.block_bytes, rekey, aad);
    }
    int length = 0;
    return EVP_CipherUpdate(state.context.get(), state.data.get(), &length, state.data.get(),
                            static_cast<int>(job.block_bytes)) == 1;
}

// How often a thread adds what it did to the run's running total (the series' slices are
// 100 ms).
constexpr int64_t kPublishIntervalNs = 1'000'000;

void publish_bytes(const CipherJob& job, uint64_t& bytes) {
    if (job.bytes_done && bytes > 0) job.bytes_done->fetch_add(bytes, std::memory_order_relaxed);
    bytes = 0;
}

}  // namespace

std::string cipher_mode_name(CipherMode mode) {
    switch (mode) {
        case CipherMode::message: return "message";
        case CipherMode::aead_record: return "aead-record";
        case CipherMode::stream: break;
    }
    return "stream";
}

std::optional<CipherMode> cipher_mode_named(std::string_view name) {
    for (CipherMode mode : {CipherMode::stream, CipherMode::message, CipherMode::aead_record}) {
        if (cipher_mode_name(mode) == name) return mode;
    }
    return std::nullopt;
}

ThreadMeasurement run_cipher_thread(const CipherJob& job, StartGate& gate, std::stop_token stop) {
    ThreadMeasurement measurement;
    ThreadState state;
    measurement.error = set_up(job, state);
    gate.ready.count_down();
    gate.go.wait();
    if (!measurement.error.empty()) return measurement;

    const int64_t deadline = gate.deadline_ns.load();
    // Read the clock about every 16 KiB of data, so timing costs nothing at 16-byte blocks.
    const uint64_t batch = std::max<uint64_t>(1, 16384 / job.block_bytes);
    const double cpu_start = thread_cpu_seconds();
    measurement.started = std::chrono::steady_clock::now();
    uint64_t ops = 0;
    bool failed = false;
    // The run's shared total is added to about once a millisecond, not once a batch: at
    // 10 GB/s a batch takes 1.6 us, and the threads adding to one cache line that often cost
    // the two-thread figure 5-9% against openssl speed -multi 2.
    uint64_t unpublished = 0;
    int64_t next_publish = steady_now_ns() + kPublishIntervalNs;
    while (!failed) {
        for (uint64_t i = 0; i < batch; ++i) {
            if (!operate(job, state)) {
                failed = true;
                break;
            }
        }
        ops += batch;
        unpublished += batch * job.block_bytes;
        const int64_t now = steady_now_ns();
        if (now >= next_publish) {
            publish_bytes(job, unpublished);
            next_publish = now + kPublishIntervalNs;
        }
        if (now >= deadline || stop.stop_requested()) break;
    }
    publish_bytes(job, unpublished);
    measurement.finished = std::chrono::steady_clock::now();
    measurement.cpu_seconds = thread_cpu_seconds() - cpu_start;
    measurement.ops = ops;
    if (failed) measurement.error = openssl_error("encryption");
    return measurement;
}

}  // namespace hostprobe::probes
