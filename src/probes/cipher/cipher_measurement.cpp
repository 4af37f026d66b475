#include "probes/cipher/cipher_measurement.hpp"

#include <algorithm>
#include <future>
#include <thread>
#include <vector>

#include "probes/cipher/cipher_catalog.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

Measurement summarize(const MeasurementSpec& spec, const std::vector<ThreadMeasurement>& threads,
                      bool complete) {
    Measurement result;
    result.cipher = spec.cipher;
    result.block_bytes = spec.block_bytes;
    result.threads = spec.threads;
    result.complete = complete;
    Clock::time_point first = threads.front().started;
    Clock::time_point last = threads.front().finished;
    for (const auto& thread : threads) {
        first = std::min(first, thread.started);
        last = std::max(last, thread.finished);
        result.ops += thread.ops;
        result.cpu_seconds += thread.cpu_seconds;
        // openssl speed -multi adds up each child's own rate; so do we.
        if (thread.cpu_seconds > 0) {
            result.cpu_bytes_per_second +=
                static_cast<double>(thread.ops * spec.block_bytes) / thread.cpu_seconds;
        }
    }
    result.bytes = result.ops * spec.block_bytes;
    result.seconds = std::chrono::duration<double>(last - first).count();
    if (result.seconds > 0)
        result.bytes_per_second = static_cast<double>(result.bytes) / result.seconds;
    return result;
}

}  // namespace

Result<Measurement> measure_cipher(const MeasurementSpec& spec, std::stop_token stop,
                                   const std::function<void(double)>& on_tick) {
    auto cipher = fetch_cipher(spec.cipher);
    if (!cipher) return cipher.error();
    const CipherJob job{cipher->get(),    is_aead_cipher(spec.cipher),
                        spec.block_bytes, spec.mode,
                        spec.decrypt,     spec.bytes_done};

    StartGate gate(static_cast<std::ptrdiff_t>(spec.threads));
    std::vector<std::future<ThreadMeasurement>> futures;
    for (size_t i = 0; i < spec.threads; ++i) {
        futures.push_back(std::async(std::launch::async, [&job, &gate, stop] {
            return run_cipher_thread(job, gate, stop);
        }));
    }
    gate.ready.wait();  // every thread has its context and buffer
    const auto start = Clock::now();
    const auto duration =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.seconds));
    gate.deadline_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>((start + duration).time_since_epoch())
            .count();
    gate.go.count_down();

    // Report progress while the threads work; they watch the stop token themselves.
    while (Clock::now() < start + duration && !stop.stop_requested()) {
        std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(100),
                                                              start + duration - Clock::now()));
        on_tick(std::min(
            1.0, std::chrono::duration<double>(Clock::now() - start).count() / spec.seconds));
    }
    std::vector<ThreadMeasurement> threads;
    for (auto& future : futures)
        threads.push_back(future.get());
    for (const auto& thread : threads) {
        if (!thread.error.empty())
            return make_error(ErrorCode::internal, spec.cipher + ": " + thread.error);
    }
    return summarize(spec, threads, !stop.stop_requested());
}

}  // namespace hostprobe::probes
