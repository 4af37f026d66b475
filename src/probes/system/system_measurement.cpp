#include "probes/system/system_measurement.hpp"

#include <algorithm>
#include <future>
#include <thread>
#include <vector>

#include "probes/common/start_gate.hpp"

namespace hostprobe::probes {

namespace {

using Clock = std::chrono::steady_clock;

Result<CopyCount> run_copy(const SystemMeasurementSpec& spec, StartGate& gate, size_t index) {
    CopyEnvironment environment = spec.environment;
    environment.file_prefix += "-" + std::string(spec.test->name) + "-" + std::to_string(index);
    gate.ready.count_down();
    gate.go.wait();
    environment.deadline = Clock::time_point(std::chrono::nanoseconds(gate.deadline_ns.load()));
    return run_test_copy(*spec.test, environment);
}

}  // namespace

Result<SystemMeasurement> measure_system_test(const SystemMeasurementSpec& spec,
                                              const std::function<void(double)>& on_tick) {
    StartGate gate(static_cast<std::ptrdiff_t>(spec.copies));
    std::vector<std::future<Result<CopyCount>>> futures;
    for (size_t i = 0; i < spec.copies; ++i) {
        futures.push_back(
            std::async(std::launch::async, [&spec, &gate, i] { return run_copy(spec, gate, i); }));
    }
    gate.ready.wait();
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(spec.seconds));
    gate.deadline_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(end.time_since_epoch()).count();
    gate.go.count_down();

    const std::stop_token& stop = spec.environment.stop;
    while (Clock::now() < end && !stop.stop_requested()) {
        std::this_thread::sleep_for(
            std::min<Clock::duration>(std::chrono::milliseconds(100), end - Clock::now()));
        on_tick(std::min(
            1.0, std::chrono::duration<double>(Clock::now() - start).count() / spec.seconds));
    }

    SystemMeasurement measurement;
    measurement.test = spec.test;
    measurement.copies = spec.copies;
    std::optional<Error> failure;
    for (auto& future : futures) {
        Result<CopyCount> copy = future.get();  // every copy is joined, also after a failure
        if (!copy) {
            if (!failure) failure = copy.error();
            continue;
        }
        if (copy->seconds > 0) measurement.value += copy->amount / copy->seconds;
        measurement.seconds = std::max(measurement.seconds, copy->seconds);
        measurement.valid = measurement.valid && copy->valid;
    }
    if (failure) return *failure;
    if (spec.test->unit == "lpm") measurement.value *= 60;
    measurement.complete = !stop.stop_requested();
    return measurement;
}

}  // namespace hostprobe::probes
