// One system test with N copies at once, each in its own thread (a copy that forks does so from
// its thread), started together through a gate; the copies' rates add up as in UnixBench's
// parallel pass.
#pragma once

#include <functional>

#include "probes/system/system_tests.hpp"

namespace hostprobe::probes {

struct SystemMeasurementSpec {
    const SystemTestSpec* test = nullptr;
    size_t copies = 1;
    double seconds = 10;
    CopyEnvironment environment;  // deadline and file_prefix are set per copy
};

struct SystemMeasurement {
    const SystemTestSpec* test = nullptr;
    size_t copies = 1;
    double value = 0;    // in the test's unit, all copies together
    double seconds = 0;  // the longest copy's
    bool valid = true;
    bool partial = false;  // stopped early
};

Result<SystemMeasurement> measure_system_test(const SystemMeasurementSpec& spec,
                                              const std::function<void(double)>& on_tick);

}  // namespace hostprobe::probes
