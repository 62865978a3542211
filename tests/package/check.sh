#!/usr/bin/env bash
# The CMake package from outside: `cmake --install` into a fresh prefix, then examples/embed and
# examples/aot configured against it with find_package(tk), as a user's project would be.
#   check.sh install BUILD WORK   install BUILD into WORK/prefix
#   check.sh embed   BUILD WORK   build examples/embed; run it in the interpreter (checks C = A*B)
#   check.sh aot     BUILD WORK   build examples/aot; check it links only libtkrt
#   check.sh aot-run BUILD WORK   run it (on the GPU; 77 without one)
#   check.sh depfile BUILD WORK   a project whose kernel file imports another: editing the import
#                                 rebuilds the header (tkc -MD through tk_add_kernels' DEPFILE)
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
depfile)
  project=$work/depfile-src
  rm -rf "$project" "$work/depfile" && mkdir -p "$project"
  cat > "$project/CMakeLists.txt" <<'EOF2'
cmake_minimum_required(VERSION 3.20)
project(tk_depfile_check LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(tk REQUIRED)
add_executable(app main.cpp)
tk_add_kernels(app FILES kernels/scale.tk)
EOF2
  mkdir -p "$project/kernels"
  printf '#include "scale.h"\nint main() { return 0; }\n' > "$project/main.cpp"
  printf 'import "factor.tk";\nkernel scale(x: ptr<f32>) { store(x, load(x) * factor()); }\n' > "$project/kernels/scale.tk"
  printf 'fn factor() { return 2.0; }\n' > "$project/kernels/factor.tk"
  cmake -S "$project" -B "$work/depfile" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$work/depfile.log"
  cmake --build "$work/depfile" >> "$work/depfile.log"
  header=$work/depfile/tk_kernels/app/scale.h
  before=$(cksum < "$header")
  # Nothing changed: nothing runs. The import changed: the header is made again, and differs.
  again=$(cmake --build "$work/depfile" 2>&1)
  grep -q 'no work to do' <<< "$again"
  sleep 1
  printf 'fn factor() { return 3.0; }\n' > "$project/kernels/factor.tk"
  cmake --build "$work/depfile" >> "$work/depfile.log"
  if [ "$(cksum < "$header")" = "$before" ]; then
    echo "editing kernels/factor.tk (imported by scale.tk) left $header as it was"; exit 1
  fi ;;
esac
