#!/usr/bin/env bash
# The CMake package from outside: `cmake --install` into a fresh prefix, then examples/embed and
# examples/aot configured against it with find_package(tk), as a user's project would be.
#   check.sh install BUILD WORK   install BUILD into WORK/prefix
#   check.sh embed   BUILD WORK   build examples/embed; run it in the interpreter (checks C = A*B)
#   check.sh aot     BUILD WORK   build examples/aot; check it links only libtkrt
#   check.sh aot-run BUILD WORK   run it (on the GPU; 77 without one)
set -euo pipefail
mode=$1 build=$2 work=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$work/prefix
trap 'echo "check.sh $mode failed; its logs:"; tail -n 30 "$work"/*.log 2>/dev/null' ERR
configure() {
  cmake -S "$root/examples/$1" -B "$work/$1" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$work/$1.log"
  cmake --build "$work/$1" >> "$work/$1.log"
}
case $mode in
install)
  rm -rf "$work" && mkdir -p "$work"
  cmake --install "$build" --prefix "$prefix" > "$work/install.log"
  test -f "$prefix/lib/cmake/tk/tkConfig.cmake" ;;
embed)
  configure embed
  "$work/embed/embed" --backend interp ;;
aot)
  configure aot
  libraries=$(ldd "$work/aot/aot") # captured first: grep -q closing the pipe early would fail it
  if grep -q 'libtk\.so' <<< "$libraries"; then
    echo "aot links libtk.so; it must need only libtkrt.so"; exit 1
  fi
  grep -q 'libtkrt\.so' <<< "$libraries"
  grep -q 'struct vector_add__BLOCK_1024' "$work/aot/tk_kernels/aot/vector_add.h" ;;
aot-run)
  "$work/aot/aot" ;;  # 77 without a GPU: ctest reports the run as skipped
esac
