// A test that cannot run here says so where CTest sees it: SKIP_TEST prints a marker that
// tests/CMakeLists.txt gives CTest as SKIP_REGULAR_EXPRESSION, so the case is reported as
// "Skipped" (with its reason in the output) instead of passing without having checked anything.
#pragma once

#include <doctest/doctest.h>

// The marker CTest looks for; keep it in step with tests/CMakeLists.txt.
#define HOSTPROBE_SKIP_MARKER "HOSTPROBE_TEST_SKIPPED"

// Ends the current test case as skipped, with the reason. A macro because it must return from
// the test case's body.
#define SKIP_TEST(reason)                              \
    do {                                               \
        MESSAGE(HOSTPROBE_SKIP_MARKER ": " << reason); \
        return;                                        \
    } while (false)
