// The files of UnixBench 6.0.0's Shell Scripts test, written by the system probe into its work
// directory: what pgms/tst.sh and pgms/multi.sh do, and a sort.src of the same shape as
// UnixBench's (its own is a page of an old shell script; the work of sort, od and grep depends
// on the shape: lines, bytes, lines with "the").
#pragma once

#include <string>

namespace hostprobe::probes {

// One copy: sort.src 20 times over, sorted; od of that, sorted by number; the lines with "the"
// through tee into wc; the files removed. Run as `SHELL tst.sh 20` in the work directory.
extern const char* const kShellTestScript;
// `SHELL multi.sh N SHELL`: N copies of tst.sh at once; fails when one fails.
extern const char* const kShellMultiScript;

// 362 lines, 8,546 bytes, 35 of them with "the", like UnixBench's testdir/sort.src; no '%' or
// '\' (tst.sh hands it to printf as its format).
std::string shell_sort_source();

}  // namespace hostprobe::probes
