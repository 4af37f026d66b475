# One CTest test per doctest case, so that each has a timeout, `ctest -j` runs them in parallel
# and a skip shows as "Skipped". Like doctest's own doctest_discover_tests (whose listing splits
# names at ';'), the cases are listed once the binary is built.
#
#   hostprobe_doctest_cases(TARGET PREFIX TIMEOUT)
#
# A case in the doctest suite "serial" (TEST_CASE("..." * doctest::test_suite("serial"))) runs
# alone: RUN_SERIAL, for cases whose own deadlines a busy neighbour could break.
# A cross build (cmake/toolchains/) lists and runs the binary through CMAKE_CROSSCOMPILING_EMULATOR.
set(HOSTPROBE_DOCTEST_CASES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/doctest_cases_script.cmake)

function(hostprobe_doctest_cases target prefix timeout)
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_cases.cmake)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_cases_include.cmake)
  add_custom_command(
    TARGET ${target} POST_BUILD
    BYPRODUCTS ${ctest_file}
    COMMAND ${CMAKE_COMMAND} -D TEST_EXECUTABLE=$<TARGET_FILE:${target}>
            "-D TEST_EMULATOR=${CMAKE_CROSSCOMPILING_EMULATOR}"
            -D TEST_PREFIX=${prefix} -D TEST_TIMEOUT=${timeout}
            -D TEST_SKIP_MARKER=HOSTPROBE_TEST_SKIPPED -D CTEST_FILE=${ctest_file}
            -P ${HOSTPROBE_DOCTEST_CASES_SCRIPT}
    VERBATIM)
  # Before the first build the binary cannot be listed: one test says so.
  file(WRITE ${include_file}
       "if(EXISTS \"${ctest_file}\")\n"
       "  include(\"${ctest_file}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
