# Turns a text file into a C++ header holding it as a std::string_view, so data tables
# (ARM parts, EC2 processors) ship inside the binary and stay diffable as CSV in the tree.
# Usage: cmake -DINPUT=file.csv -DOUTPUT=file.hpp -DSYMBOL=kName -P embed_text.cmake
file(READ "${INPUT}" content)
string(FIND "${content}" ")hostprobe_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/embed_text.cmake; do not edit.\n"
  "#pragma once\n#include <string_view>\n"
  "inline constexpr std::string_view ${SYMBOL} = R\"hostprobe_embed(${content})hostprobe_embed\";\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
