# Files compiled into the binary, turned into C++ at build time so that the tree keeps them as
# plain files (diffable CSV, the page's HTML, JS and CSS) and the binary needs nothing beside it.
#
# One text file as a header holding it as a std::string_view (the data tables of src/host/data):
#   cmake -DINPUT=file.csv -DOUTPUT=file.hpp -DSYMBOL=kName -P embed.cmake
# Every file below a folder as a source file defining `std::span<const http::StaticAsset>
# FUNCTION()` (declared in HEADER): each file's path relative to the folder, its Content-Type
# from its extension (an unknown extension stops the build), an ETag from a hash of its bytes,
# and a gzip copy made here, kept when it is smaller. Names starting with "." are left out.
# Anything but a regular file of at most EMBED_MAX_FILE_BYTES stops the build with its name.
#   cmake -DFOLDER=dir -DOUTPUT=file.cpp -DHEADER=api/x.hpp -DNAMESPACE=ns -DFUNCTION=name
#         -DSCRATCH=dir -P embed.cmake
cmake_minimum_required(VERSION 3.20)

function(embed_text_file)
  if(IS_DIRECTORY "${INPUT}")
    message(FATAL_ERROR "${INPUT}: a directory, not a file to embed")
  endif()
  execute_process(COMMAND test -f "${INPUT}" RESULT_VARIABLE not_regular)
  if(NOT not_regular EQUAL 0)
    message(FATAL_ERROR "${INPUT}: missing or not a regular file (a FIFO, a device, a socket)")
  endif()
  file(READ "${INPUT}" content)
  string(FIND "${content}" ")hostprobe_embed\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
  endif()
  file(WRITE "${OUTPUT}.tmp"
    "// Generated from ${INPUT} by cmake/embed.cmake; do not edit.\n"
    "#pragma once\n#include <string_view>\n"
    "inline constexpr std::string_view ${SYMBOL} = R\"hostprobe_embed(${content})hostprobe_embed\";\n")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
endfunction()

# The Content-Type a browser needs for each kind of file the page may hold.
function(embed_content_type path out)
  get_filename_component(name "${path}" NAME)
  get_filename_component(extension "${path}" LAST_EXT)
  string(TOLOWER "${extension}" extension)
  set(types_.html "text/html; charset=utf-8")
  set(types_.js "text/javascript; charset=utf-8")
  set(types_.mjs "text/javascript; charset=utf-8")
  set(types_.css "text/css; charset=utf-8")
  set(types_.json "application/json")
  set(types_.map "application/json")
  set(types_.svg "image/svg+xml")
  set(types_.png "image/png")
  set(types_.ico "image/x-icon")
  set(types_.woff2 "font/woff2")
  set(types_.txt "text/plain; charset=utf-8")
  set(types_.md "text/plain; charset=utf-8")
  set(types_ "text/plain; charset=utf-8")  # LICENSE, README and the like
  if(NOT DEFINED types_${extension})
    message(FATAL_ERROR "${FOLDER}/${path}: no Content-Type is known for '${extension}' files; "
                        "add one to embed_content_type in cmake/embed.cmake")
  endif()
  set(${out} "${types_${extension}}" PARENT_SCOPE)
endfunction()

# The largest file the page may hold: each is compiled in as hex and served from memory.
set(EMBED_MAX_FILE_BYTES 4194304)

# Only a regular file of a bounded size is read. A symbolic link (to a directory, to nothing, to
# /dev/zero or to any file of the build machine), a FIFO (whose read would wait forever), a
# device or a socket stops the build with its name. An unreadable file stops it too, where
# file(SHA256) fails to read it ("Permission denied").
function(embed_check_regular_file path)
  set(full "${FOLDER}/${path}")
  if(IS_SYMLINK "${full}")
    message(FATAL_ERROR "${full}: a symbolic link; only regular files are embedded in the page")
  endif()
  file(SIZE "${full}" size)
  if(size EQUAL 0)
    # FIFOs, devices and sockets report size 0; CMake cannot tell them apart, test(1) can.
    execute_process(COMMAND test -f "${full}" RESULT_VARIABLE not_regular)
    if(NOT not_regular EQUAL 0)
      message(FATAL_ERROR "${full}: not a regular file (a FIFO, a device or a socket); only "
                          "regular files are embedded in the page")
    endif()
  endif()
  if(size GREATER EMBED_MAX_FILE_BYTES)
    message(FATAL_ERROR "${full}: ${size} bytes, more than the ${EMBED_MAX_FILE_BYTES} a file "
                        "of the page may have (EMBED_MAX_FILE_BYTES in cmake/embed.cmake)")
  endif()
endfunction()

# Bytes as the body of a C++ string literal: "\x3c\x21..." in lines of 32 bytes.
function(embed_escaped_bytes hex out)
  string(REPEAT ".." 32 line)
  string(REGEX REPLACE "(${line})" "\\1\n" hex "${hex}")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(REGEX REPLACE "\n$" "" escaped "${escaped}")
  string(REPLACE "\n" "\"\n        \"" escaped "${escaped}")
  set(${out} "\"${escaped}\"" PARENT_SCOPE)
endfunction()

function(embed_folder)
  file(GLOB_RECURSE files RELATIVE "${FOLDER}" "${FOLDER}/*")
  list(SORT files)
  set(entries "")
  set(total 0)
  set(total_gzip 0)
  file(MAKE_DIRECTORY "${SCRATCH}")
  foreach(path ${files})
    if(path MATCHES "(^|/)\\.")
      continue()
    endif()
    if(NOT path MATCHES "^[A-Za-z0-9._/-]+$")
      message(FATAL_ERROR "${FOLDER}/${path}: a served file's name may hold only letters, "
                          "digits, '.', '_', '-' and '/'")
    endif()
    embed_check_regular_file("${path}")
    embed_content_type("${path}" content_type)
    file(SHA256 "${FOLDER}/${path}" hash)
    string(SUBSTRING "${hash}" 0 20 tag)
    file(SIZE "${FOLDER}/${path}" size)
    file(READ "${FOLDER}/${path}" hex HEX)
    embed_escaped_bytes("${hex}" body)

    string(MAKE_C_IDENTIFIER "${path}" scratch_name)
    set(compressed "${SCRATCH}/${scratch_name}.gz")
    file(ARCHIVE_CREATE OUTPUT "${compressed}" PATHS "${FOLDER}/${path}" FORMAT raw
         COMPRESSION GZip COMPRESSION_LEVEL 9)
    file(SIZE "${compressed}" gzip_size)
    if(gzip_size LESS size)
      file(READ "${compressed}" gzip_hex HEX)
      # Bytes 4 to 7 of the gzip header are the time it was made: zero (RFC 1952: "no time
      # stamp"), so that the same files always make the same binary.
      string(SUBSTRING "${gzip_hex}" 0 8 gzip_head)
      string(SUBSTRING "${gzip_hex}" 16 -1 gzip_tail)
      embed_escaped_bytes("${gzip_head}00000000${gzip_tail}" gzip_body)
      set(gzip_tag "\"\\\"${tag}-gzip\\\"\"")
      math(EXPR total_gzip "${total_gzip} + ${gzip_size}")
    else()
      set(gzip_body "\"\"")
      set(gzip_size 0)
      set(gzip_tag "\"\"")
      math(EXPR total_gzip "${total_gzip} + ${size}")
    endif()
    math(EXPR total "${total} + ${size}")
    string(APPEND entries
      "    {\"${path}\", \"${content_type}\", \"\\\"${tag}\\\"\",\n"
      "     std::string_view(${body},\n        ${size}),\n"
      "     ${gzip_tag},\n"
      "     std::string_view(${gzip_body},\n        ${gzip_size})},\n")
  endforeach()
  if(entries STREQUAL "")
    message(FATAL_ERROR "${FOLDER} holds no file to embed")
  endif()
  file(WRITE "${OUTPUT}.tmp"
    "// Generated from ${FOLDER} by cmake/embed.cmake; do not edit.\n"
    "// ${total} bytes; as served to a client that accepts gzip: ${total_gzip} bytes.\n"
    "#include \"${HEADER}\"\n\n"
    "namespace ${NAMESPACE} {\n\n"
    "std::span<const http::StaticAsset> ${FUNCTION}() {\n"
    "    static constexpr http::StaticAsset kEmbedded[] = {\n${entries}    };\n"
    "    return kEmbedded;\n}\n\n}  // namespace ${NAMESPACE}\n")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
  message(STATUS "Embedded ${FOLDER}: ${total} bytes, ${total_gzip} with gzip")
endfunction()

if(DEFINED FOLDER)
  embed_folder()
else()
  embed_text_file()
endif()
