# cmake/embed.cmake on a folder holding one hostile entry beside a good file (issue 26): a
# symbolic link (to a directory, to nothing, to /dev/zero), a FIFO, a file over the size limit
# and an unreadable file each stop it with a message naming the entry, within a deadline (a FIFO
# used to block it forever, /dev/zero to fill memory). A plain folder still embeds, and an empty
# sub-directory is passed over.
#   cmake -DEMBED=cmake/embed.cmake -DWORK=<scratch dir> -P embed_file_kinds.cmake
cmake_minimum_required(VERSION 3.20)

set(failures 0)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(fresh_folder name)
  file(REMOVE_RECURSE "${WORK}/${name}")
  file(MAKE_DIRECTORY "${WORK}/${name}/ui")
  file(WRITE "${WORK}/${name}/ui/index.html" "<!doctype html><title>t</title>\n")
endfunction()

# Runs the embedder on WORK/<name>/ui; sets `status` and `errors` in the caller.
function(run_embedder name)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DFOLDER=${WORK}/${name}/ui -DOUTPUT=${WORK}/${name}/out.cpp
            -DHEADER=x.hpp -DNAMESPACE=ns -DFUNCTION=assets -DSCRATCH=${WORK}/${name}/gz
            -P ${EMBED}
    RESULT_VARIABLE result ERROR_VARIABLE stderr OUTPUT_VARIABLE stdout TIMEOUT 20)
  set(status "${result}" PARENT_SCOPE)
  set(errors "${stderr}" PARENT_SCOPE)
endfunction()

function(expect_refused name message)
  run_embedder(${name})
  string(REPLACE "\n" " " flat "${errors}")
  string(REGEX REPLACE " +" " " flat "${flat}")
  if(status EQUAL 0 OR NOT flat MATCHES "${message}" OR EXISTS "${WORK}/${name}/out.cpp")
    message(SEND_ERROR "${name}: expected a failure saying '${message}'; got status "
                       "'${status}' and: ${errors}")
    math(EXPR failures "${failures} + 1")
    set(failures ${failures} PARENT_SCOPE)
  else()
    message(STATUS "${name}: refused as expected (${message})")
  endif()
endfunction()

# The control: a plain folder, a sub-folder and an empty sub-folder embed.
fresh_folder(plain)
file(WRITE "${WORK}/plain/ui/js/app.js" "console.log(1);\n")
file(MAKE_DIRECTORY "${WORK}/plain/ui/empty")
run_embedder(plain)
if(NOT status EQUAL 0 OR NOT EXISTS "${WORK}/plain/out.cpp")
  message(FATAL_ERROR "a plain folder did not embed (status '${status}'): ${errors}")
endif()
file(READ "${WORK}/plain/out.cpp" generated)
if(NOT generated MATCHES "\"js/app.js\"" OR generated MATCHES "empty")
  message(FATAL_ERROR "the plain folder's output lacks js/app.js or names the empty folder")
endif()

fresh_folder(link_to_directory)
file(MAKE_DIRECTORY "${WORK}/elsewhere")
file(WRITE "${WORK}/elsewhere/secret.txt" "not for the page\n")
file(CREATE_LINK "${WORK}/elsewhere" "${WORK}/link_to_directory/ui/more" SYMBOLIC)
expect_refused(link_to_directory "link_to_directory/ui/more: a symbolic link")

fresh_folder(dangling_link)
file(CREATE_LINK "${WORK}/nothing-here" "${WORK}/dangling_link/ui/gone.js" SYMBOLIC)
expect_refused(dangling_link "dangling_link/ui/gone.js: a symbolic link")

fresh_folder(endless_device)
file(CREATE_LINK "/dev/zero" "${WORK}/endless_device/ui/zero.js" SYMBOLIC)
expect_refused(endless_device "endless_device/ui/zero.js: a symbolic link")

fresh_folder(huge_file)
execute_process(COMMAND truncate -s 4194305 "${WORK}/huge_file/ui/huge.js" RESULT_VARIABLE made)
if(made EQUAL 0)
  expect_refused(huge_file "huge_file/ui/huge.js: 4194305 bytes, more than the 4194304")
else()
  message(STATUS "huge_file: skipped, no truncate(1)")
endif()

find_program(MKFIFO mkfifo)
if(MKFIFO)
  fresh_folder(fifo)
  execute_process(COMMAND ${MKFIFO} "${WORK}/fifo/ui/pipe.js")
  expect_refused(fifo "fifo/ui/pipe.js: not a regular file \\(a FIFO")
else()
  message(STATUS "fifo: skipped, no mkfifo")
endif()

# Mode 000 stops no read by root: as root the embedder runs as nobody (setpriv), otherwise as
# ourselves.
fresh_folder(unreadable)
file(WRITE "${WORK}/unreadable/ui/locked.js" "secret\n")
execute_process(COMMAND chmod 000 "${WORK}/unreadable/ui/locked.js")
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
find_program(SETPRIV setpriv)
if(NOT uid STREQUAL "0")
  expect_refused(unreadable "(not readable: +[^ ]*|failed to read file \"[^ ]*)/unreadable/ui/locked.js")
elseif(SETPRIV)
  # nobody must reach the folder and write the output beside it.
  execute_process(COMMAND chmod 0777 "${WORK}" "${WORK}/unreadable" "${WORK}/unreadable/ui")
  set(CMAKE_COMMAND_SAVED ${CMAKE_COMMAND})
  set(CMAKE_COMMAND ${SETPRIV} --reuid=65534 --regid=65534 --clear-groups ${CMAKE_COMMAND_SAVED})
  expect_refused(unreadable "(not readable: +[^ ]*|failed to read file \"[^ ]*)/unreadable/ui/locked.js")
  set(CMAKE_COMMAND ${CMAKE_COMMAND_SAVED})
else()
  message(STATUS "unreadable: skipped, running as root without setpriv(1)")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} hostile folder(s) were not refused")
endif()
