# Run by hostprobe_doctest_cases (doctest_cases.cmake) after a test binary is built: lists its
# cases and writes CTEST_FILE, one add_test per case.
# In: TEST_EXECUTABLE, TEST_EMULATOR (empty, or a cross build's emulator), TEST_PREFIX,
#     TEST_TIMEOUT, TEST_SKIP_MARKER, CTEST_FILE.
cmake_minimum_required(VERSION 3.20)


# The case names `--list-test-cases` prints (with `extra` filters), one per element. ';' and
# the brackets, which CMake's lists treat specially, come back as <semicolon>, <open>, <close>.
function(list_cases out)
  execute_process(COMMAND ${TEST_EMULATOR} "${TEST_EXECUTABLE}" --list-test-cases --no-version
                          ${ARGN}
                  OUTPUT_VARIABLE output RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${TEST_EXECUTABLE} --list-test-cases failed (${result}):\n${output}")
  endif()
  string(REPLACE ";" "<semicolon>" output "${output}")
  string(REPLACE "[" "<open>" output "${output}")
  string(REPLACE "]" "<close>" output "${output}")
  string(REPLACE "\n" ";" lines "${output}")
  set(names)
  foreach(line IN LISTS lines)
    if(line STREQUAL "" OR line MATCHES "^===" OR line MATCHES "^<open>doctest<close> ")
      continue()
    endif()
    list(APPEND names "${line}")
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

list_cases(all_cases)
list_cases(serial_cases --test-suite=serial)

set(script "")
set(command "")
foreach(part IN LISTS TEST_EMULATOR ITEMS "${TEST_EXECUTABLE}")
  string(APPEND command "[==[${part}]==] ")
endforeach()
foreach(name IN LISTS all_cases)
  # doctest's filter: ',' separates filters unless escaped; '*' and '?' are wildcards that also
  # match themselves, so '?' stands in for the ';' a CMake argument cannot carry unescaped.
  set(filter "${name}")
  string(REPLACE "," "\\," filter "${filter}")
  string(REPLACE "<semicolon>" "?" filter "${filter}")
  string(REPLACE "<open>" "[" filter "${filter}")
  string(REPLACE "<close>" "]" filter "${filter}")
  set(title "${name}")
  string(REPLACE "<semicolon>" "," title "${title}")
  string(REPLACE "<open>" "(" title "${title}")
  string(REPLACE "<close>" ")" title "${title}")
  set(title "${TEST_PREFIX}: ${title}")
  # Passing needs doctest's own count of one case run and passed: a filter that matched no case
  # (doctest then exits 0) fails instead of passing unseen.
  set(properties "TIMEOUT ${TEST_TIMEOUT} SKIP_REGULAR_EXPRESSION ${TEST_SKIP_MARKER}")
  string(APPEND properties
         " PASS_REGULAR_EXPRESSION [==[test cases: +1 \\| +1 passed \\| +0 failed]==]")
  if("${name}" IN_LIST serial_cases)
    string(APPEND properties " RUN_SERIAL TRUE")
  endif()
  string(APPEND script
         "add_test([==[${title}]==] ${command}[==[--test-case=${filter}]==])\n"
         "set_tests_properties([==[${title}]==] PROPERTIES ${properties} LABELS ${TEST_PREFIX})\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
