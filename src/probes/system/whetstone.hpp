// The double-precision Whetstone of UnixBench ("Double-Precision Whetstone", src/whets.c: Roy
// Longbottom's 1996 C version of Curnow and Wichmann's 1972 benchmark, compiled with -DDP),
// ported without global state: whets.c's static variables live in a WhetstoneState owned by the
// caller, so threads can each run their own.
//
// whets.c runs eight sections in turn, each `xtra` times (a "pass"), each timed on its own:
//
//   section  whets.c title        1972 module                 loop count per pass   ops counted
//   N1       N1 floating point    2, array elements           12 * x100 (x 10)      16 flops
//   N2       N2 floating point    3, array as parameter       14 * x100             96 flops
//   N3       N3 if then else      4, conditional jumps        345 * x100            3 ops
//   N4       N4 fixed point       6, integer arithmetic       210 * x100            15 ops
//   N5       N5 sin,cos etc.      7, trigonometric functions  32 * x100 - 1         26 ops
//   N6       N6 floating point    8, procedure calls          899 * x100            6 flops
//   N7       N7 assignments       9, array references         616 * x100            3 ops
//   N8       N8 exp,sqrt etc.     11, standard functions      93 * x100             4 ops
//
// with x100 = 100. (The 1972 modules 1, 5 and 10 carry no weight and were removed in 1987.)
// N1 runs ten times its weight for timing accuracy and its time is divided by ten.
//
// MWIPS, as whets.c's main() computes it:
//     mwips = xtra * x100 / (10 * TimeUsed)
// where TimeUsed is the sum of the eight section times in seconds (N1's divided by ten). In the
// 1972 program a loop multiplier I = 10 is one million Whetstone instructions; x100 = 100 is
// I = 100, so one pass is ten million Whetstone instructions and MWIPS = 10 * passes / seconds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace hostprobe::probes {

inline constexpr long kWhetstoneX100 = 100;  // whets.c's x100: inner loops run 100 x the weights

struct WhetstoneSection {
    const char* title;    // as whets.c prints it
    double ops_per_pass;  // what pout() divides by the section's time for its MFLOPS or MOPS
    bool flops;           // true: MFLOPS, false: MOPS
};

inline constexpr std::array<WhetstoneSection, 8> kWhetstoneSections{{
    {"N1 floating point", 12.0 * kWhetstoneX100 * 16, true},
    {"N2 floating point", 14.0 * kWhetstoneX100 * 96, true},
    {"N3 if then else", 345.0 * kWhetstoneX100 * 3, false},
    {"N4 fixed point", 210.0 * kWhetstoneX100 * 15, false},
    {"N5 sin,cos etc.", 32.0 * kWhetstoneX100 * 26, false},
    {"N6 floating point", 899.0 * kWhetstoneX100 * 6, true},
    {"N7 assignments", 616.0 * kWhetstoneX100 * 3, false},
    {"N8 exp,sqrt etc.", 93.0 * kWhetstoneX100 * 4, false},
}};

// Each section's result for one pass (xtra = 1) in double precision, as whets.c's header lists
// them (Watcom C/C++ 10.5, Win32NT); other compilers and libms differ in the last digits.
inline constexpr std::array<double, 8> kWhetstoneOnePassResults{
    -1.12398255667391900, -1.12187079889284400, 1.0, 12.0,
    0.49902937281515140,  0.99999987890802820,  3.0, 0.75100163018457870,
};

// whets.c's static variables, as the last whetstone_passes() call left them.
struct WhetstoneState {
    std::array<double, 8> loop_time{};  // seconds per section (N1's divided by ten)
    std::array<double, 8> results{};    // each section's check number (whets.c's results[])
    double Check = 0;     // sum of the check numbers; whets.c says "Wrong answer" when 0
    double TimeUsed = 0;  // sum of loop_time: the time MWIPS is computed from
};

// whets.c's whetstones(xtra, x100 = 100, ...): every section `xtra` times in turn, each timed on
// the steady clock (whets.c's dtime()). Fills `state`.
void whetstone_passes(WhetstoneState& state, uint64_t xtra);

// MWIPS from passes and TimeUsed, whets.c's formula: passes * x100 / (10 * seconds).
constexpr double whetstone_mwips(uint64_t passes, double seconds) {
    return seconds > 0 ? static_cast<double>(passes) * static_cast<double>(kWhetstoneX100) /
                             (10.0 * seconds)
                       : 0;
}

// A section's MFLOPS or MOPS (kWhetstoneSections[section].flops says which), as pout() computes
// it: ops per pass * passes / (1e6 * seconds).
constexpr double whetstone_section_rate(size_t section, uint64_t passes, double seconds) {
    return seconds > 0 ? kWhetstoneSections[section].ops_per_pass * static_cast<double>(passes) /
                             (1e6 * seconds)
                       : 0;
}

// True when every result is within `relative` of kWhetstoneOnePassResults (results of
// whetstone_passes(state, 1)).
bool whetstone_results_valid(const std::array<double, 8>& results, double relative = 1e-9);

struct WhetstoneRun {
    uint64_t passes = 0;
    double seconds = 0;       // TimeUsed summed over the passes: what MWIPS is computed from
    double wall_seconds = 0;  // steady clock over the whole run, N1's full time included
    double mwips = 0;
    std::array<double, 8> section_seconds{};  // per section, summed over the passes
    std::array<double, 8> results{};          // of the last pass
    bool valid = true;                        // whetstone_results_valid() held after every pass
};

// Runs one pass at a time (whetstones(1, 100), as whets.c's first calibration step) on a fresh
// state until `should_stop()` returns true (asked after every pass, so at least one runs). A
// pass is ten million Whetstone instructions: a few milliseconds on a current core.
WhetstoneRun run_whetstone(const std::function<bool()>& should_stop);

}  // namespace hostprobe::probes
