#!/usr/bin/env bash
# Copies the shared libraries an ELF program loads, and its loader, into a root directory: the
# distroless image's (Dockerfile). Reads the ELF headers (readelf reads every architecture), never
# runs the program, so it works for a cross-compiled arm64 binary as for a native one, where ldd
# could not. Libraries go to /lib/<multiarch triplet>/ of the root, one of the loader's built-in
# directories (a distroless image has no ld.so.cache), the loader to its PT_INTERP path.
#
#   scripts/copy-runtime-libs.sh <program> <root> <triplet> <library dir>...
#
# Each NEEDED name is looked up in the library directories in the order given, then in the
# libraries it needs, recursively. Fails, naming the library, when one is not found.
set -euo pipefail

if [ "$#" -lt 4 ]; then
  echo "usage: $0 <program> <root> <triplet> <library dir>..." >&2
  exit 2
fi
program="$1" root="$2" triplet="$3"
shift 3
library_dirs=("$@")

fail() { echo "copy-runtime-libs: $*" >&2; exit 1; }

needed_names() {  # needed_names <elf>: its DT_NEEDED entries, one a line
  readelf --dynamic --wide "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

find_library() {  # find_library <name>: the first library directory holding it
  local dir
  for dir in "${library_dirs[@]}"; do
    if [ -e "$dir/$1" ]; then
      echo "$dir/$1"
      return 0
    fi
  done
  return 1
}

interpreter=$(readelf --program-headers --wide "$program" \
  | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
[ -n "$interpreter" ] || fail "$program has no program interpreter (not a dynamic executable?)"
# A cross build's loader may not be at its run-time path on the build machine.
interpreter_source="$interpreter"
[ -e "$interpreter_source" ] || interpreter_source=$(find_library "$(basename "$interpreter")") \
  || fail "the loader $interpreter is not in ${library_dirs[*]}"
mkdir -p "$root$(dirname "$interpreter")" "$root/lib/$triplet"
cp -L "$interpreter_source" "$root$interpreter"

# The loader is named as a NEEDED entry too (libc names it): it is in the root already.
declare -A copied=(["$(basename "$interpreter")"]=loader)
libraries=0
pending=("$program")
while [ "${#pending[@]}" -gt 0 ]; do
  elf="${pending[0]}"
  pending=("${pending[@]:1}")
  while read -r name; do
    [ -n "$name" ] || continue
    [ -z "${copied[$name]:-}" ] || continue
    path=$(find_library "$name") || fail "$name (needed by $elf) is not in ${library_dirs[*]}"
    cp -L "$path" "$root/lib/$triplet/$name"
    copied[$name]=library
    libraries=$((libraries + 1))
    pending+=("$path")
  done < <(needed_names "$elf")
done
echo "copy-runtime-libs: $(basename "$program"): $libraries libraries and $interpreter" >&2
