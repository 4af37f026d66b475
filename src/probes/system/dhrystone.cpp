// Dhrystone 2.1 as UnixBench compiles it (src/dhry_1.c and src/dhry_2.c, BYTE's copy of
// Weicker's program), ported statement by statement. What changed:
//  - the globals are members of DhrystoneState, reached through the `s` parameter;
//  - the two records are members of the state instead of malloc()ed;
//  - the loop counter is a local (UnixBench's is a volatile global its SIGALRM handler reads);
//  - the timing code and the printing of the final values are gone: dhrystone_state_valid()
//    makes the same checks.
//
// The original is two translation units, so a compiler could not inline, clone or specialize the
// dhry_2.c procedures (Proc_6, Proc_7, Proc_8, Func_1, Func_2) into their callers in dhry_1.c:
// main's loop makes real calls to them. DHRY_2_CALLEE gives those functions the same
// separation here (GCC's noipa: no inlining, no cloning, no interprocedural constant
// propagation), so one file does not let the optimizer fold away what two files kept. Calls
// inside dhry_2.c itself (Func_2 -> Func_1, Proc_6 -> Func_3) stay inlinable as they were, as do
// the dhry_1.c procedures Proc_1..Proc_5 called from main.
#include "probes/system/dhrystone.hpp"

#include <chrono>
#include <climits>
#include <cstring>

#if defined(__clang__)
#define DHRY_2_CALLEE __attribute__((noinline))
#else
#define DHRY_2_CALLEE __attribute__((noipa))
#endif

namespace hostprobe::probes {

namespace dhry {

// dhry_2.c, as called from dhry_1.c.
DHRY_2_CALLEE void Proc_6(DhrystoneState& s, Enumeration Enum_Val_Par, Enumeration* Enum_Ref_Par);
DHRY_2_CALLEE void Proc_7(One_Fifty Int_1_Par_Val, One_Fifty Int_2_Par_Val, One_Fifty* Int_Par_Ref);
DHRY_2_CALLEE void Proc_8(DhrystoneState& s, Arr_1_Dim Arr_1_Par_Ref, Arr_2_Dim Arr_2_Par_Ref,
                          int Int_1_Par_Val, int Int_2_Par_Val);
DHRY_2_CALLEE Enumeration Func_1(DhrystoneState& s, Capital_Letter Ch_1_Par_Val,
                                 Capital_Letter Ch_2_Par_Val);
DHRY_2_CALLEE Boolean Func_2(DhrystoneState& s, Str_30 Str_1_Par_Ref, Str_30 Str_2_Par_Ref);

/* dhry_1.c */

void Proc_3(DhrystoneState& s, Rec_Pointer* Ptr_Ref_Par)
/* executed once */
/* Ptr_Ref_Par becomes Ptr_Glob */
{
    if (s.Ptr_Glob != nullptr) /* then, executed */
        *Ptr_Ref_Par = s.Ptr_Glob->Ptr_Comp;
    Proc_7(10, s.Int_Glob, &s.Ptr_Glob->variant.var_1.Int_Comp);
} /* Proc_3 */

void Proc_1(DhrystoneState& s, Rec_Pointer Ptr_Val_Par)
/* executed once */
{
    Rec_Pointer Next_Record = Ptr_Val_Par->Ptr_Comp;
    /* == Ptr_Glob_Next */
    /* Local variable, initialized with Ptr_Val_Par->Ptr_Comp,    */
    /* corresponds to "rename" in Ada, "with" in Pascal           */

    *Ptr_Val_Par->Ptr_Comp = *s.Ptr_Glob; /* structassign */
    Ptr_Val_Par->variant.var_1.Int_Comp = 5;
    Next_Record->variant.var_1.Int_Comp = Ptr_Val_Par->variant.var_1.Int_Comp;
    Next_Record->Ptr_Comp = Ptr_Val_Par->Ptr_Comp;
    Proc_3(s, &Next_Record->Ptr_Comp);
    /* Ptr_Val_Par->Ptr_Comp->Ptr_Comp
                        == Ptr_Glob->Ptr_Comp */
    if (Next_Record->Discr == Ident_1) /* then, executed */
    {
        Next_Record->variant.var_1.Int_Comp = 6;
        Proc_6(s, Ptr_Val_Par->variant.var_1.Enum_Comp, &Next_Record->variant.var_1.Enum_Comp);
        Next_Record->Ptr_Comp = s.Ptr_Glob->Ptr_Comp;
        Proc_7(Next_Record->variant.var_1.Int_Comp, 10, &Next_Record->variant.var_1.Int_Comp);
    } else                                     /* not executed */
        *Ptr_Val_Par = *Ptr_Val_Par->Ptr_Comp; /* structassign */
} /* Proc_1 */

void Proc_2(DhrystoneState& s, One_Fifty* Int_Par_Ref)
/* executed once */
/* *Int_Par_Ref == 1, becomes 4 */
{
    One_Fifty Int_Loc;
    Enumeration Enum_Loc;

    Enum_Loc = Ident_1; /* UnixBench's "Enum_Loc = 0;" */

    Int_Loc = *Int_Par_Ref + 10;
    do                          /* executed once */
        if (s.Ch_1_Glob == 'A') /* then, executed */
        {
            Int_Loc -= 1;
            *Int_Par_Ref = Int_Loc - s.Int_Glob;
            Enum_Loc = Ident_1;
        }                        /* if */
    while (Enum_Loc != Ident_1); /* true */
} /* Proc_2 */

void Proc_4(DhrystoneState& s) /* without parameters */
/* executed once */
{
    Boolean Bool_Loc;

    Bool_Loc = s.Ch_1_Glob == 'A';
    s.Bool_Glob = Bool_Loc | s.Bool_Glob;
    s.Ch_2_Glob = 'B';
} /* Proc_4 */

void Proc_5(DhrystoneState& s) /* without parameters */
/* executed once */
{
    s.Ch_1_Glob = 'A';
    s.Bool_Glob = false;
} /* Proc_5 */

/* dhry_2.c */

Boolean Func_3(Enumeration Enum_Par_Val)
/* executed once        */
/* Enum_Par_Val == Ident_3 */
{
    Enumeration Enum_Loc;

    Enum_Loc = Enum_Par_Val;
    if (Enum_Loc == Ident_3) /* then, executed */
        return (true);
    else /* not executed */
        return (false);
} /* Func_3 */

void Proc_6(DhrystoneState& s, Enumeration Enum_Val_Par, Enumeration* Enum_Ref_Par)
/* executed once */
/* Enum_Val_Par == Ident_3, Enum_Ref_Par becomes Ident_2 */
{
    *Enum_Ref_Par = Enum_Val_Par;
    if (!Func_3(Enum_Val_Par)) /* then, not executed */
        *Enum_Ref_Par = Ident_4;
    switch (Enum_Val_Par) {
        case Ident_1: *Enum_Ref_Par = Ident_1; break;
        case Ident_2:
            if (s.Int_Glob > 100) /* then */
                *Enum_Ref_Par = Ident_1;
            else
                *Enum_Ref_Par = Ident_4;
            break;
        case Ident_3: /* executed */ *Enum_Ref_Par = Ident_2; break;
        case Ident_4: break;
        case Ident_5: *Enum_Ref_Par = Ident_3; break;
    } /* switch */
} /* Proc_6 */

void Proc_7(One_Fifty Int_1_Par_Val, One_Fifty Int_2_Par_Val, One_Fifty* Int_Par_Ref)
/* executed three times                                      */
/* first call:      Int_1_Par_Val == 2, Int_2_Par_Val == 3,  */
/*                  Int_Par_Ref becomes 7                    */
/* second call:     Int_1_Par_Val == 10, Int_2_Par_Val == 5, */
/*                  Int_Par_Ref becomes 17                   */
/* third call:      Int_1_Par_Val == 6, Int_2_Par_Val == 10, */
/*                  Int_Par_Ref becomes 18                   */
{
    One_Fifty Int_Loc;

    Int_Loc = Int_1_Par_Val + 2;
    *Int_Par_Ref = Int_2_Par_Val + Int_Loc;
} /* Proc_7 */

void Proc_8(DhrystoneState& s, Arr_1_Dim Arr_1_Par_Ref, Arr_2_Dim Arr_2_Par_Ref, int Int_1_Par_Val,
            int Int_2_Par_Val)
/* executed once      */
/* Int_Par_Val_1 == 3 */
/* Int_Par_Val_2 == 7 */
{
    One_Fifty Int_Index;
    One_Fifty Int_Loc;

    Int_Loc = Int_1_Par_Val + 5;
    Arr_1_Par_Ref[Int_Loc] = Int_2_Par_Val;
    Arr_1_Par_Ref[Int_Loc + 1] = Arr_1_Par_Ref[Int_Loc];
    Arr_1_Par_Ref[Int_Loc + 30] = Int_Loc;
    for (Int_Index = Int_Loc; Int_Index <= Int_Loc + 1; ++Int_Index)
        Arr_2_Par_Ref[Int_Loc][Int_Index] = Int_Loc;
    Arr_2_Par_Ref[Int_Loc][Int_Loc - 1] += 1;
    Arr_2_Par_Ref[Int_Loc + 20][Int_Loc] = Arr_1_Par_Ref[Int_Loc];
    s.Int_Glob = 5;
} /* Proc_8 */

// Func_1's body, which Func_2 (same file in the original) may inline.
inline Enumeration Func_1_body(DhrystoneState& s, Capital_Letter Ch_1_Par_Val,
                               Capital_Letter Ch_2_Par_Val)
/* executed three times                                         */
/* first call:      Ch_1_Par_Val == 'H', Ch_2_Par_Val == 'R'    */
/* second call:     Ch_1_Par_Val == 'A', Ch_2_Par_Val == 'C'    */
/* third call:      Ch_1_Par_Val == 'B', Ch_2_Par_Val == 'C'    */
{
    Capital_Letter Ch_1_Loc;
    Capital_Letter Ch_2_Loc;

    Ch_1_Loc = Ch_1_Par_Val;
    Ch_2_Loc = Ch_1_Loc;
    if (Ch_2_Loc != Ch_2_Par_Val) /* then, executed */
        return (Ident_1);
    else /* not executed */
    {
        s.Ch_1_Glob = Ch_1_Loc;
        return (Ident_2);
    }
} /* Func_1 */

Enumeration Func_1(DhrystoneState& s, Capital_Letter Ch_1_Par_Val, Capital_Letter Ch_2_Par_Val) {
    return Func_1_body(s, Ch_1_Par_Val, Ch_2_Par_Val);
}

Boolean Func_2(DhrystoneState& s, Str_30 Str_1_Par_Ref, Str_30 Str_2_Par_Ref)
/* executed once */
/* Str_1_Par_Ref == "DHRYSTONE PROGRAM, 1'ST STRING" */
/* Str_2_Par_Ref == "DHRYSTONE PROGRAM, 2'ND STRING" */
{
    One_Thirty Int_Loc;
    Capital_Letter Ch_Loc;

    Ch_Loc = 'A';
    Int_Loc = 2;
    while (Int_Loc <= 2) /* loop body executed once */
        if (Func_1_body(s, Str_1_Par_Ref[Int_Loc], Str_2_Par_Ref[Int_Loc + 1]) ==
            Ident_1) /* then, executed */
        {
            Ch_Loc = 'A';
            Int_Loc += 1;
        }                              /* if, while */
    if (Ch_Loc >= 'W' && Ch_Loc < 'Z') /* then, not executed */
        Int_Loc = 7;
    if (Ch_Loc == 'R') /* then, not executed */
        return (true);
    else /* executed */
    {
        if (std::strcmp(Str_1_Par_Ref, Str_2_Par_Ref) > 0) /* then, not executed */
        {
            Int_Loc += 7;
            s.Int_Glob = Int_Loc;
            return (true);
        } else /* executed */
            return (false);
    } /* if Ch_Loc */
} /* Func_2 */

}  // namespace dhry

using namespace dhry;

DhrystoneState::DhrystoneState() {
    /* Initializations */

    Next_Ptr_Glob = &Next_Rec;
    Ptr_Glob = &Glob_Rec;

    Ptr_Glob->Ptr_Comp = Next_Ptr_Glob;
    Ptr_Glob->Discr = Ident_1;
    Ptr_Glob->variant.var_1.Enum_Comp = Ident_3;
    Ptr_Glob->variant.var_1.Int_Comp = 40;
    std::strcpy(Ptr_Glob->variant.var_1.Str_Comp, "DHRYSTONE PROGRAM, SOME STRING");

    Arr_2_Glob[8][7] = 10;
    /* Was missing in published program. Without this statement,    */
    /* Arr_2_Glob [8][7] would have an undefined value.             */
    /* Warning: With 16-Bit processors and Number_Of_Runs > 32000,  */
    /* overflow may occur for this array element.                   */
}

uint64_t dhrystone_loops(DhrystoneState& s, uint64_t loops) {
    if (loops == 0) return 0;

    // main()'s locals (zeroed, which the loop never relies on, to keep the compiler quiet).
    One_Fifty Int_1_Loc = 0;
    One_Fifty Int_2_Loc = 0;
    One_Fifty Int_3_Loc = 0;
    char Ch_Index = 0;
    Enumeration Enum_Loc = Ident_1;
    Str_30 Str_1_Loc;
    Str_30 Str_2_Loc;

    std::strcpy(Str_1_Loc, "DHRYSTONE PROGRAM, 1'ST STRING");

    for (uint64_t Run_Index = 1; Run_Index <= loops; ++Run_Index) {
        Proc_5(s);
        Proc_4(s);
        /* Ch_1_Glob == 'A', Ch_2_Glob == 'B', Bool_Glob == true */
        Int_1_Loc = 2;
        Int_2_Loc = 3;
        std::strcpy(Str_2_Loc, "DHRYSTONE PROGRAM, 2'ND STRING");
        Enum_Loc = Ident_2;
        s.Bool_Glob = !Func_2(s, Str_1_Loc, Str_2_Loc);
        /* Bool_Glob == 1 */
        while (Int_1_Loc < Int_2_Loc) /* loop body executed once */
        {
            Int_3_Loc = 5 * Int_1_Loc - Int_2_Loc;
            /* Int_3_Loc == 7 */
            Proc_7(Int_1_Loc, Int_2_Loc, &Int_3_Loc);
            /* Int_3_Loc == 7 */
            Int_1_Loc += 1;
        } /* while */
        /* Int_1_Loc == 3, Int_2_Loc == 3, Int_3_Loc == 7 */
        Proc_8(s, s.Arr_1_Glob, s.Arr_2_Glob, Int_1_Loc, Int_3_Loc);
        /* Int_Glob == 5 */
        Proc_1(s, s.Ptr_Glob);
        for (Ch_Index = 'A'; Ch_Index <= s.Ch_2_Glob; ++Ch_Index)
        /* loop body executed twice */
        {
            if (Enum_Loc == Func_1(s, Ch_Index, 'C')) /* then, not executed */
            {
                Proc_6(s, Ident_1, &Enum_Loc);
                std::strcpy(Str_2_Loc, "DHRYSTONE PROGRAM, 3'RD STRING");
                Int_2_Loc = static_cast<int>(Run_Index);
                s.Int_Glob = static_cast<int>(Run_Index);
            }
        }
        /* Int_1_Loc == 3, Int_2_Loc == 3, Int_3_Loc == 7 */
        Int_2_Loc = Int_2_Loc * Int_1_Loc;
        Int_1_Loc = Int_2_Loc / Int_3_Loc;
        Int_2_Loc = 7 * (Int_2_Loc - Int_3_Loc) - Int_1_Loc;
        /* Int_1_Loc == 1, Int_2_Loc == 13, Int_3_Loc == 7 */
        Proc_2(s, &Int_1_Loc);
        /* Int_1_Loc == 5 */

    } /* loop "for Run_Index" */

    s.Int_1_Loc = Int_1_Loc;
    s.Int_2_Loc = Int_2_Loc;
    s.Int_3_Loc = Int_3_Loc;
    s.Enum_Loc = Enum_Loc;
    std::memcpy(s.Str_1_Loc, Str_1_Loc, sizeof Str_1_Loc);
    std::memcpy(s.Str_2_Loc, Str_2_Loc, sizeof Str_2_Loc);
    return loops;
}

bool dhrystone_state_valid(const DhrystoneState& s, uint64_t loops) {
    static constexpr char kSomeString[] = "DHRYSTONE PROGRAM, SOME STRING";
    if (loops > static_cast<uint64_t>(INT_MAX - 10)) return false;
    const Rec_Type& glob = *s.Ptr_Glob;
    const Rec_Type& next = *s.Next_Ptr_Glob;
    return s.Int_Glob == 5 && s.Bool_Glob == 1 && s.Ch_1_Glob == 'A' && s.Ch_2_Glob == 'B' &&
           s.Arr_1_Glob[8] == 7 && s.Arr_2_Glob[8][7] == static_cast<int>(loops) + 10 &&
           // Ptr_Comp: "(implementation-dependent)" for both, "same as above" for the second.
           glob.Ptr_Comp == s.Next_Ptr_Glob && next.Ptr_Comp == glob.Ptr_Comp && glob.Discr == 0 &&
           glob.variant.var_1.Enum_Comp == 2 && glob.variant.var_1.Int_Comp == 17 &&
           std::strcmp(glob.variant.var_1.Str_Comp, kSomeString) == 0 && next.Discr == 0 &&
           next.variant.var_1.Enum_Comp == 1 && next.variant.var_1.Int_Comp == 18 &&
           std::strcmp(next.variant.var_1.Str_Comp, kSomeString) == 0 && s.Int_1_Loc == 5 &&
           s.Int_2_Loc == 13 && s.Int_3_Loc == 7 && s.Enum_Loc == 1 &&
           std::strcmp(s.Str_1_Loc, "DHRYSTONE PROGRAM, 1'ST STRING") == 0 &&
           std::strcmp(s.Str_2_Loc, "DHRYSTONE PROGRAM, 2'ND STRING") == 0;
}

DhrystoneRun run_dhrystone(const std::function<bool()>& should_stop) {
    DhrystoneState state;
    DhrystoneRun run;
    const auto start = std::chrono::steady_clock::now();
    do {
        dhrystone_loops(state, kDhrystoneBatch);
        // Reading the state back keeps every batch's work observable; then Arr_2_Glob[8][7],
        // which counts loops, goes back to 10 so that it never overflows.
        run.valid = dhrystone_state_valid(state, kDhrystoneBatch) && run.valid;
        state.Arr_2_Glob[8][7] = 10;
        run.loops += kDhrystoneBatch;
    } while (!should_stop());
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

}  // namespace hostprobe::probes
