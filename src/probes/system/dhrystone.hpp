// Dhrystone 2.1 (Reinhold P. Weicker, dhry_1.c / dhry_2.c, May 1988), the integer kernel of
// UnixBench's "Dhrystone 2 using register variables" test, ported without global state: the
// program's globals live in a DhrystoneState owned by the caller, so threads can each run their
// own. The names inside the state and the kernel are Weicker's, so the port reads against the
// original line by line.
#pragma once

#include <cstdint>
#include <functional>

namespace hostprobe::probes {

// dhry.h's types.
namespace dhry {

enum Enumeration { Ident_1, Ident_2, Ident_3, Ident_4, Ident_5 };

using One_Thirty = int;
using One_Fifty = int;
using Capital_Letter = char;
using Boolean = int;
using Str_30 = char[31];
using Arr_1_Dim = int[50];
using Arr_2_Dim = int[50][50];

struct Rec_Type {
    Rec_Type* Ptr_Comp;
    Enumeration Discr;
    union {
        struct {
            Enumeration Enum_Comp;
            int Int_Comp;
            char Str_Comp[31];
        } var_1;
        struct {
            Enumeration E_Comp_2;
            char Str_2_Comp[31];
        } var_2;
        struct {
            char Ch_1_Comp;
            char Ch_2_Comp;
        } var_3;
    } variant;
};
using Rec_Pointer = Rec_Type*;

}  // namespace dhry

// Everything dhry_1.c keeps in globals, plus main()'s locals as the last loop left them (the
// values the original prints at the end with their "should be" values). Construction does the
// initializations at the top of main(). Self-referential (Ptr_Glob points into it): not copyable.
// Aligned to a cache line so that states of different threads never share one.
struct alignas(64) DhrystoneState {
    DhrystoneState();
    DhrystoneState(const DhrystoneState&) = delete;
    DhrystoneState& operator=(const DhrystoneState&) = delete;

    dhry::Rec_Pointer Ptr_Glob = nullptr;
    dhry::Rec_Pointer Next_Ptr_Glob = nullptr;
    int Int_Glob = 0;
    dhry::Boolean Bool_Glob = 0;
    char Ch_1_Glob = 0;
    char Ch_2_Glob = 0;
    dhry::Arr_1_Dim Arr_1_Glob = {};
    // Arr_2_Glob[8][7] grows by one per loop from 10: keep a state's loops below INT_MAX - 10
    // (run_dhrystone re-arms it after every batch).
    dhry::Arr_2_Dim Arr_2_Glob = {};

    // main()'s locals after the last loop of the last dhrystone_loops() call.
    dhry::One_Fifty Int_1_Loc = 0;
    dhry::One_Fifty Int_2_Loc = 0;
    dhry::One_Fifty Int_3_Loc = 0;
    dhry::Enumeration Enum_Loc = dhry::Ident_1;
    dhry::Str_30 Str_1_Loc = {};
    dhry::Str_30 Str_2_Loc = {};

    // The two records the original malloc()s: Ptr_Glob and Next_Ptr_Glob point here.
    dhry::Rec_Type Glob_Rec = {};
    dhry::Rec_Type Next_Rec = {};
};

// Runs exactly `loops` passes of Dhrystone's main loop on `state`; returns `loops`.
uint64_t dhrystone_loops(DhrystoneState& state, uint64_t loops);

// The end-of-run checks dhry_1.c prints: every variable against its "should be" value, with
// Arr_2_Glob[8][7] == loops + 10 where `loops` counts every loop run on `state` since it was
// constructed (or since Arr_2_Glob[8][7] was last set back to 10).
bool dhrystone_state_valid(const DhrystoneState& state, uint64_t loops);

struct DhrystoneRun {
    uint64_t loops = 0;
    double seconds = 0;  // steady clock, from the first loop to the end of the last batch
    bool valid = true;   // dhrystone_state_valid() held after every batch
    double loops_per_second() const {
        return seconds > 0 ? static_cast<double>(loops) / seconds : 0;
    }
};

// Loops run between two calls of `should_stop` in run_dhrystone(); a few hundred microseconds
// on a current core.
inline constexpr uint64_t kDhrystoneBatch = 10000;

// Runs batches of kDhrystoneBatch loops on a fresh state until `should_stop()` returns true
// (asked after every batch, so at least one batch runs).
DhrystoneRun run_dhrystone(const std::function<bool()>& should_stop);

// Dhrystone MIPS ("VAX MIPS"): the VAX 11/780, a 1 MIPS machine, does 1757 Dhrystones/s.
inline constexpr double kVax11780DhrystonesPerSecond = 1757.0;
constexpr double dmips(double loops_per_second) {
    return loops_per_second / kVax11780DhrystonesPerSecond;
}

}  // namespace hostprobe::probes
