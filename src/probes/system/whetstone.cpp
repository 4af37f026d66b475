// whets.c's whetstones(), pa(), po() and p3() in double precision (SPDP = double), statement by
// statement. What changed:
//  - pout()'s bookkeeping (Check, loop_time[], results[], TimeUsed) goes to the caller's
//    WhetstoneState instead of static variables; the printing is gone;
//  - dtime() is the steady clock (UnixBench builds whets.c with -DGTODay: gettimeofday());
//  - x100 is the constant 100 main() always passes.
// t, t1 and t2 stay what they are in whets.c: locals of whetstones() with constant values, which
// the compiler sees (dividing by t2 = 2.0 compiles to a multiplication by 0.5, there as here).
// pa(), po() and p3() are ordinary functions of this file, as they are of whets.c.
#include "probes/system/whetstone.hpp"

#include <chrono>
#include <cmath>

#include "core/elapsed.hpp"

namespace hostprobe::probes {

namespace whets {

void pa(double e[4], double t, double t2) {
    long j;
    for (j = 0; j < 6; j++) {
        e[0] = (e[0] + e[1] + e[2] - e[3]) * t;
        e[1] = (e[0] + e[1] - e[2] + e[3]) * t;
        e[2] = (e[0] - e[1] + e[2] + e[3]) * t;
        e[3] = (-e[0] + e[1] + e[2] + e[3]) / t2;
    }

    return;
}

void po(double e1[4], long j, long k, long l) {
    e1[j] = e1[k];
    e1[k] = e1[l];
    e1[l] = e1[j];
    return;
}

void p3(double* x, double* y, double* z, double t, double t1, double t2) {
    *x = *y;
    *y = *z;
    *x = t * (*x + *y);
    *y = t1 * (*x + *y);
    *z = (*x + *y) / t2;
    return;
}

}  // namespace whets

namespace {

using Clock = std::chrono::steady_clock;

// pout() without the printing: section numbers 1..8 as in whets.c.
void pout(WhetstoneState& state, double checknum, double time, int section) {
    state.Check = state.Check + checknum;
    state.loop_time[section - 1] = time;
    state.TimeUsed = state.TimeUsed + time;
    state.results[section - 1] = checknum;
}

}  // namespace

using namespace whets;

void whetstone_passes(WhetstoneState& state, uint64_t passes) {
    // Hide the pass count from the optimizer (an empty asm: no instruction), so that no section
    // can be specialized for, or folded at, a count known where this function is inlined.
    long xtra = static_cast<long>(passes);
    asm volatile("" : "+r"(xtra));
    const long x100 = kWhetstoneX100;

    long n1, n2, n3, n4, n5, n6, n7, n8, i, ix, n1mult;
    double x, y, z;
    long j, k, l;
    double e1[4];
    Clock::time_point timea;
    double timeb;

    double t = 0.49999975;
    double t0 = t;
    double t1 = 0.50000025;
    double t2 = 2.0;

    state.Check = 0.0;
    state.TimeUsed = 0;  // main() does this before each call

    n1 = 12 * x100;
    n2 = 14 * x100;
    n3 = 345 * x100;
    n4 = 210 * x100;
    n5 = 32 * x100;
    n6 = 899 * x100;
    n7 = 616 * x100;
    n8 = 93 * x100;
    n1mult = 10;

    /* Section 1, Array elements */

    e1[0] = 1.0;
    e1[1] = -1.0;
    e1[2] = -1.0;
    e1[3] = -1.0;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n1 * n1mult; i++) {
                e1[0] = (e1[0] + e1[1] + e1[2] - e1[3]) * t;
                e1[1] = (e1[0] + e1[1] - e1[2] + e1[3]) * t;
                e1[2] = (e1[0] - e1[1] + e1[2] + e1[3]) * t;
                e1[3] = (-e1[0] + e1[1] + e1[2] + e1[3]) * t;
            }
            t = 1.0 - t;
        }
        t = t0;
    }
    timeb = core::seconds_since(timea) / static_cast<double>(n1mult);
    pout(state, e1[3], timeb, 1);

    /* Section 2, Array as parameter */

    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n2; i++) {
                pa(e1, t, t2);
            }
            t = 1.0 - t;
        }
        t = t0;
    }
    timeb = core::seconds_since(timea);
    pout(state, e1[3], timeb, 2);

    /* Section 3, Conditional jumps */
    j = 1;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n3; i++) {
                if (j == 1)
                    j = 2;
                else
                    j = 3;
                if (j > 2)
                    j = 0;
                else
                    j = 1;
                if (j < 1)
                    j = 1;
                else
                    j = 0;
            }
        }
    }
    timeb = core::seconds_since(timea);
    pout(state, static_cast<double>(j), timeb, 3);

    /* Section 4, Integer arithmetic */
    j = 1;
    k = 2;
    l = 3;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n4; i++) {
                j = j * (k - j) * (l - k);
                k = l * k - (l - j) * k;
                l = (l - k) * (k + j);
                e1[l - 2] = static_cast<double>(j + k + l);
                e1[k - 2] = static_cast<double>(j * k * l);
            }
        }
    }
    timeb = core::seconds_since(timea);
    x = e1[0] + e1[1];
    pout(state, x, timeb, 4);

    /* Section 5, Trig functions */
    x = 0.5;
    y = 0.5;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 1; i < n5; i++) {
                x = t * std::atan(t2 * std::sin(x) * std::cos(x) /
                                  (std::cos(x + y) + std::cos(x - y) - 1.0));
                y = t * std::atan(t2 * std::sin(y) * std::cos(y) /
                                  (std::cos(x + y) + std::cos(x - y) - 1.0));
            }
            t = 1.0 - t;
        }
        t = t0;
    }
    timeb = core::seconds_since(timea);
    pout(state, y, timeb, 5);

    /* Section 6, Procedure calls */
    x = 1.0;
    y = 1.0;
    z = 1.0;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n6; i++) {
                p3(&x, &y, &z, t, t1, t2);
            }
        }
    }
    timeb = core::seconds_since(timea);
    pout(state, z, timeb, 6);

    /* Section 7, Array refrences */
    j = 0;
    k = 1;
    l = 2;
    e1[0] = 1.0;
    e1[1] = 2.0;
    e1[2] = 3.0;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n7; i++) {
                po(e1, j, k, l);
            }
        }
    }
    timeb = core::seconds_since(timea);
    pout(state, e1[2], timeb, 7);

    /* Section 8, Standard functions */
    x = 0.75;
    timea = Clock::now();
    {
        for (ix = 0; ix < xtra; ix++) {
            for (i = 0; i < n8; i++) {
                x = std::sqrt(std::exp(std::log(x) / t1));
            }
        }
    }
    timeb = core::seconds_since(timea);
    pout(state, x, timeb, 8);
}

bool whetstone_results_valid(const std::array<double, 8>& results, double relative) {
    for (size_t section = 0; section < results.size(); ++section) {
        const double expected = kWhetstoneOnePassResults[section];
        if (!(std::abs(results[section] - expected) <= relative * std::abs(expected))) return false;
    }
    return true;
}

WhetstoneRun run_whetstone(const std::function<bool()>& should_stop) {
    WhetstoneState state;
    WhetstoneRun run;
    const auto start = Clock::now();
    do {
        whetstone_passes(state, 1);
        ++run.passes;
        run.seconds += state.TimeUsed;
        for (size_t section = 0; section < run.section_seconds.size(); ++section)
            run.section_seconds[section] += state.loop_time[section];
        run.valid = whetstone_results_valid(state.results) && state.Check != 0 && run.valid;
    } while (!should_stop());
    run.wall_seconds = core::seconds_since(start);
    run.results = state.results;
    run.mwips = whetstone_mwips(run.passes, run.seconds);
    return run;
}

}  // namespace hostprobe::probes
