#!/usr/bin/env bash
# The CMake package from outside: `cmake --install` into a fresh prefix, then examples/embed and
# examples/aot configured against it with find_package(tkc), as a user's project would be.
#   check.sh install BUILD WORK   install BUILD into WORK/prefix: names that collide with nothing
#                                 of Debian's (Tcl/Tk has libtk.so, include/tk/, tk.pc),
#                                 versioned SONAMEs, pkg-config files a program builds with, the
#                                 Python package (in place and pip-installed) on the library
#   check.sh embed   BUILD WORK   build examples/embed; run it in the interpreter (checks C = A*B)
#   check.sh aot     BUILD WORK   build examples/aot; check it links only libtkc-runtime
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
  # The library folder GNUInstallDirs chose (lib, lib64, lib/<multiarch>): the package's parent.
  config=$(cd "$prefix" && find . -path '*/cmake/tkc/tkcConfig.cmake' | head -1)
  [ -n "$config" ] || { echo "no cmake/tkc/tkcConfig.cmake under $prefix"; exit 1; }
  libdir=$(dirname "$(dirname "$(dirname "$config")")")
  # Nothing of Tcl/Tk's names: no libtk.so, no include/tk/, no tk.pc, no share/tk/.
  if compgen -G "$prefix/$libdir/libtk.so*" > /dev/null || [ -e "$prefix/$libdir/pkgconfig/tk.pc" ] ||
     [ -e "$prefix/include/tk" ] || [ -e "$prefix/share/tk" ]; then
    echo "the install uses a name of Tcl/Tk's:"; find "$prefix" -maxdepth 3 | sort; exit 1
  fi
  test -f "$prefix/include/tkc/tk/tk.h"
  # The targets add include/tkc only: never the bare include/ (a Tcl/Tk tk/ or an older install's).
  if grep -q '_IMPORT_PREFIX}/include[;"]' "$prefix/$libdir/cmake/tkc/tkcTargets.cmake"; then
    echo "tkcTargets.cmake puts $prefix/include on the include path"; exit 1
  fi
  # Versioned SONAMEs: libtkc.so -> libtkc.so.MAJOR.MINOR (the name executables need).
  for lib in tkc tkc-runtime tkc-graph; do
    soname=$(objdump -p "$prefix/$libdir/lib$lib.so" | awk '/SONAME/ {print $2}')
    [[ $soname =~ ^lib$lib\.so\.[0-9]+\.[0-9]+$ ]] || { echo "lib$lib.so has SONAME '$soname'"; exit 1; }
    test -e "$prefix/$libdir/$soname"
  done
  # pkg-config: a program built with `pkg-config --cflags --libs tkc-runtime` against the prefix.
  if command -v pkg-config > /dev/null; then
    export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
    test "$(pkg-config --modversion tkc)" = "$(pkg-config --modversion tkc-runtime)"
    test "$(pkg-config --modversion tkc-graph)" = "$(pkg-config --modversion tkc)"
    pkg-config --cflags --libs tkc tkc-graph > /dev/null
    printf '#include <tk/tk.h>\nint main() { return tk::Backend::Interpreter == tk::Backend::Cuda; }\n' > "$work/pc.cpp"
    # shellcheck disable=SC2046
    c++ -std=c++17 "$work/pc.cpp" -o "$work/pc" $(pkg-config --cflags --libs tkc-runtime) -Wl,-rpath,"$prefix/$libdir"
    "$work/pc"
  fi
  # The Python package: used in place, and as pip copies it elsewhere, it finds the installed
  # library and runs a kernel in the interpreter.
  test -f "$prefix/share/tkc/python/tkc/_library.py"
  python=${TK_PYTHON3:-python3}
  "$python" -m pip install --quiet --no-build-isolation --no-deps --no-index --target "$work/site" \
    "$prefix/share/tkc/python" 2> /dev/null
  for path in "$prefix/share/tkc/python" "$work/site"; do
    (cd "$work" && PYTHONPATH=$path TK_CACHE_DIR= "$python" -c '
import numpy as np, tkc
add = tkc.load("'"$root/examples/vector_add.tk"'", backend="interp").vector_add
x = np.ones(64, np.float32); out = np.zeros_like(x); add[(1,)](x, x, out, 64)
assert out.tolist() == [2.0] * 64 and tkc._library.library_path().startswith("'"$prefix"'"), tkc._library.library_path()')
  done ;;
embed)
  configure embed
  "$work/embed/embed" --backend interp ;;
aot)
  configure aot
  libraries=$(ldd "$work/aot/aot") # captured first: grep -q closing the pipe early would fail it
  if grep -q 'libtkc\.so' <<< "$libraries"; then
    echo "aot links libtkc.so; it must need only libtkc-runtime.so"; exit 1
  fi
  grep -q 'libtkc-runtime\.so' <<< "$libraries"
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
find_package(tkc REQUIRED)
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
