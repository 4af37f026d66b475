# Cross-compiles hostprobe for arm64 (aarch64) on a Debian bookworm amd64 machine (issue 16).
# Interface, kept stable for the Dockerfile and scripts/setup.sh:
#
#   scripts/arm64-deps.sh DIR
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DHOSTPROBE_ARM64_DEPS=DIR ...
#
# HOSTPROBE_ARM64_DEPS (or the environment variable of that name), best an absolute path, is the
# folder scripts/arm64-deps.sh unpacked prometheus-cpp's arm64 CMake package into; everything
# else comes from Debian's multiarch :arm64 packages under / (libraries in
# /usr/lib/aarch64-linux-gnu).
# When qemu-aarch64-static is installed it becomes CMAKE_CROSSCOMPILING_EMULATOR, so ctest (and
# the listing of doctest cases after a build) run the arm64 test binaries through it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT HOSTPROBE_ARM64_DEPS AND DEFINED ENV{HOSTPROBE_ARM64_DEPS})
  set(HOSTPROBE_ARM64_DEPS "$ENV{HOSTPROBE_ARM64_DEPS}")
endif()
if(NOT HOSTPROBE_ARM64_DEPS)
  message(FATAL_ERROR "aarch64 toolchain: set HOSTPROBE_ARM64_DEPS to the folder "
                      "scripts/arm64-deps.sh prepared")
endif()
get_filename_component(HOSTPROBE_ARM64_DEPS "${HOSTPROBE_ARM64_DEPS}" ABSOLUTE)
# try_compile projects read the toolchain again: they get the folder passed on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HOSTPROBE_ARM64_DEPS)

# The private folder first (prometheus-cpp's package), then the multiarch root.
set(CMAKE_FIND_ROOT_PATH "${HOSTPROBE_ARM64_DEPS}" /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# cpp-httplib and liburing are found through pkg-config: only their arm64 .pc files.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

find_program(HOSTPROBE_QEMU_AARCH64 qemu-aarch64-static)
if(HOSTPROBE_QEMU_AARCH64 AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${HOSTPROBE_QEMU_AARCH64}")
endif()
