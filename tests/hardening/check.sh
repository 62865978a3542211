#!/usr/bin/env bash
# Hardening regressions (issue 16), one ctest test per case: check.sh CASE TKC SOURCE_DIR.
# Attacks run against a scratch directory as the same user (symlinks planted where an attacker
# would plant them); memory limits are enforced with `ulimit -v`, hangs with `timeout`.
set -uo pipefail
case_name=$1 tkc=$2 src=$3
here=$src/tests/hardening
scratch=$(mktemp -d /tmp/tk-hardening-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export TK_CACHE_DIR=$scratch/cache
fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }
# expect STATUS PATTERN CMD...: runs CMD, checks its exit status and that stderr matches PATTERN.
expect() {
  local want=$1 pattern=$2; shift 2
  "$@" >"$scratch/out" 2>"$scratch/err"
  local got=$?
  [ "$got" = "$want" ] || fail "exit status $got, expected $want: $* $(head -c 2000 "$scratch/err")"
  grep -qE -- "$pattern" "$scratch/err" || fail "stderr lacks /$pattern/: $(head -c 2000 "$scratch/err")"
}
limited() { (ulimit -v "$1"; shift; timeout 120 "$@"); }
va=$src/examples/vector_add.tk
run_va() { "$tkc" run "$va" --kernel vector_add --grid 1 --backend=interp y=zeros:f32:16 out=zeros:f32:16 n=16 "$@"; }

case $case_name in
# 5: -o through a shared directory never writes through a planted symlink.
output-symlink)
  echo secret >"$scratch/victim"; chmod 600 "$scratch/victim"
  ln -s "$scratch/victim" "$scratch/result.mlir"
  # The names tkc once used, .NAME.tmp.PID.N, planted for the pid tkc will have (exec keeps it).
  sh -c 'for n in $(seq 0 50); do ln -s "$1/victim" "$1/.result.mlir.tmp.$$.$n"; done; exec "$2" "$3" -o "$1/result.mlir"' \
    sh "$scratch" "$tkc" "$va" || fail "tkc -o failed"
  [ "$(cat "$scratch/victim")" = secret ] || fail "the victim file was overwritten"
  [ ! -L "$scratch/result.mlir" ] && grep -q "func.func @vector_add" "$scratch/result.mlir" || fail "no output"
  [ -z "$(find "$scratch" -name '.result.mlir.tmp-*')" ] || fail "temporary files left";;
# 10: a failed write of standard output is an error with the OS's reason.
stdout-full)
  [ -w /dev/full ] || { echo "no /dev/full: skipped"; exit 0; }
  expect 1 "cannot write standard output: No space left on device" sh -c "'$tkc' '$va' > /dev/full"
  expect 1 "cannot write standard output: No space left on device" sh -c "'$tkc' '$va' -o - > /dev/full"
  expect 1 "cannot write '/dev/full': No space left on device" "$tkc" "$va" -o /dev/full;;
# 12: --save is all or nothing; a failed one names the OS's reason.
save-all-or-nothing)
  touch "$scratch/file"
  expect 1 "cannot (create the directory|write).*$scratch/file" run_va x=zeros:f32:16 --save out="$scratch/out.npy" --save y="$scratch/file/y.npy"
  [ ! -e "$scratch/out.npy" ] || fail "the first --save was kept after the second failed";;
# 8: only regular files of the size their header describes are read.
npy-files)
  expect 1 "x.*/dev/zero.*not a regular file" run_va x=@/dev/zero
  mkfifo "$scratch/fifo"
  expect 1 "not a regular file" timeout 20 "$tkc" run "$va" --kernel vector_add --grid 1 --backend=interp x=@"$scratch/fifo" y=zeros:f32:16 out=zeros:f32:16 n=16
  python3 - "$scratch" <<'PY'
import sys
d = sys.argv[1]
def npy(path, shape, data):  # format 1.0, little-endian f32, as numpy writes it
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data)
npy(d + "/big.npy", "(1000,)", bytes(4000))
with open(d + "/big.npy", "r+b") as f:
    f.truncate(4 << 30)  # sparse: 4 GiB on the file system, 1000 elements in the header
npy(d + "/huge.npy", "(4611686018427387904, 4)", bytes(16))  # an element count past 64 bits
npy(d + "/holes.npy", "(4,,,4)", bytes(64))  # a size left out (was read as (4, 4))
npy(d + "/trailing.npy", "(16,,)", bytes(64))  # two commas after the last size (was read as (16,))
npy(d + "/wide-empty.npy", "(0, 18446744073709551615)", b"")  # no element, a size past 2^63 (was kept as -1)
PY
  expect 1 "the file is too long: 4000 bytes of data expected" limited 1500000 "$tkc" run "$va" --kernel vector_add --grid 1 --backend=interp x=@"$scratch/big.npy" y=zeros:f32:16 out=zeros:f32:16 n=16
  expect 1 "huge.npy.*more than 4294967296 elements" run_va x=@"$scratch/huge.npy"
  expect 1 "holes.npy: bad shape \(4,,,4\)" run_va x=@"$scratch/holes.npy"
  expect 1 "trailing.npy: bad shape \(16,,\)" run_va x=@"$scratch/trailing.npy"
  expect 1 "wide-empty.npy: the shape \(0, 18446744073709551615\) has a size past 4294967296" run_va x=@"$scratch/wide-empty.npy";;
# 9: element counts are overflow-checked.
element-counts)
  expect 1 "argument 'x': the shape 4294967296x4294967296 has more than 4294967296 elements" run_va x=zeros:f32:4294967296x4294967296
  expect 1 "argument 'x': the shape 65536x65536x2 has more than" run_va x=zeros:f32:65536x65536x2;;
# 11: scalars must fit their type; --grid is one checked expression, never source text.
scalar-range)
  s=$here/inputs/scalar.tk
  r() { timeout 20 "$tkc" run "$s" --kernel k --grid 'cdiv(n, 16)' --backend=interp p=zeros:i32:16 "$@"; }
  expect 1 "argument 'n': 4294968296 does not fit in i32" r n=4294968296 b=1 f=1
  expect 1 "argument 'b': 256 does not fit in u8" r n=1 b=256 f=1
  expect 1 "argument 'b': -1 does not fit in u8" r n=1 b=-1 f=1
  expect 1 "argument 'f': 1e39 does not fit in f32" r n=1 b=1 f=1e39
  r n=16 b=255 f=0.5 || fail "a valid run failed"
  # Each float type's own range (f32's was checked for all: e=1000 ran as NaN, h=70000 as inf).
  narrow() { timeout 20 "$tkc" run "$here/inputs/scalar-narrow.tk" --grid 1 --backend=interp o=zeros:f32:16 "$@"; }
  expect 1 "argument 'e': 1000 does not fit in f8e4m3" narrow e=1000 h=1 w=1
  expect 1 "argument 'h': 70000 does not fit in f16" narrow e=1 h=70000 w=1
  expect 1 "argument 'w': 1e38 does not fit in f8e5m2" narrow e=1 h=1 w=1e38
  narrow e=448 h=65504 w=57344 || fail "the largest finite values failed"
  narrow e=-inf h=inf w=nan || fail "infinities and NaN given as such failed";;
grid-expression)
  expect 1 "integer overflow" run_va x=zeros:f32:16 --grid '4294967296*4294967296+1'
  expect 1 "--grid.*unexpected" run_va x=zeros:f32:16 --grid "$(cat "$here/inputs/grid-injection.txt")"
  expect 1 "nesting is too deep" run_va x=zeros:f32:16 --grid "$(printf '(%.0s' $(seq 300))1$(printf ')%.0s' $(seq 300))"
  python3 "$here/gen.py" grid "$scratch/grid"
  run_va x=zeros:f32:16 --grid "$(cat "$scratch/grid")" >/dev/null 2>"$scratch/err" || fail "10,000 terms: $(cat "$scratch/err")";;
# 3: input nesting inside the file limit never overflows a stack.
deep-sum|deep-casts|deep-elseif|deep-angles)
  python3 "$here/gen.py" "${case_name#deep-}" "$scratch/in.tk"
  expect 1 "in.tk:[0-9]+:[0-9]+: error: (the program nests too deeply|nesting is too deep)" limited 3000000 "$tkc" check "$scratch/in.tk";;
# 2: a total budget for unrolling; parameters in linear memory.
unroll-product)
  expect 1 "unroll-product.tk:4:[0-9]+: error: the program is too large to compile" limited 3000000 "$tkc" check "$here/inputs/unroll-product.tk";;
unroll-error)
  # (the first failing copy ends the unrolling: once 775 MB, now well under this limit)
  expect 1 "unroll-error.tk:5:96: error: range bounds must be scalar integers, found f32" limited 300000 "$tkc" check "$here/inputs/unroll-error.tk"
  expect 1 "unroll-error.tk:5:96: error: range bounds must be scalar integers" limited 300000 "$tkc" "$here/inputs/unroll-error.tk" --emit=ptx -o /dev/null;;
unroll-empty)
  # (the copies of a loop that never runs count their tokens: once 775 MB, now well under this limit)
  expect 1 "unroll-empty.tk:5:[0-9]+: error: the program is too large to compile" limited 300000 "$tkc" check "$here/inputs/unroll-empty.tk";;
copies-cost-their-size)
  # Every copy the front end keeps costs its size: a kernel's copy for each @autotune config
  # (once 3.4 GB for 4096 configs of a body under `if false`), and a long name's text in each
  # unrolled copy (once 5.2 GB unchecked, 812 MB checked).
  python3 "$here/gen.py" configs "$scratch/configs.tk"
  expect 0 "configs.tk:2:8: warning: @autotune configs [0-9]+ to 4096 of kernel 'k' not type-checked" limited 300000 "$tkc" check "$scratch/configs.tk"
  for kind in longname longname-checked; do
    python3 "$here/gen.py" $kind "$scratch/$kind.tk"
    expect 1 "$kind.tk:2:[0-9]+: error: the program is too large to compile" limited 300000 "$tkc" check "$scratch/$kind.tk"
  done
  # (what a copy holds: comments are not copied, and a well-commented unrolled body is no larger)
  python3 "$here/gen.py" commented "$scratch/commented.tk"
  "$tkc" check "$scratch/commented.tk" 2>"$scratch/err" || fail "a commented unrolled body: $(head -c 2000 "$scratch/err")";;
# Out of memory at any point of the front end: a clean error, never std::terminate (freeing the
# syntax tree once allocated in a destructor, and a bad_alloc there aborted the process).
out-of-memory)
  for kb in 150000 175000 200000 225000 250000 275000; do
    for emit in check ptx; do
      if [ $emit = check ]; then set -- "$tkc" check "$here/inputs/unroll-product.tk"
      else set -- "$tkc" "$here/inputs/unroll-product.tk" --emit=ptx -o /dev/null; fi
      limited $kb "$@" >"$scratch/out" 2>"$scratch/err"
      got=$?
      [ $got = 1 ] || fail "exit status $got under $kb KB: $* $(head -c 2000 "$scratch/err")"
      grep -qE "^tkc: error: out of memory|too large to compile" "$scratch/err" || fail "under $kb KB: $(head -c 2000 "$scratch/err")"
    done
  done;;
many-params)
  python3 "$here/gen.py" params "$scratch/params.tk" 20000
  expect 1 "params.tk:1:8: error: kernel 'k' has 20000 parameters; at most 4096" limited 3000000 "$tkc" "$scratch/params.tk" --emit=ptx -o /dev/null
  python3 "$here/gen.py" params "$scratch/params.tk" 4096 # 32768 bytes of pointers: past what ptxas takes
  expect 1 "params.tk:1:8: error: kernel 'k' takes 32768 bytes of parameters; a launch passes at most 32764" limited 3000000 "$tkc" "$scratch/params.tk" --emit=ptx -o /dev/null
  python3 "$here/gen.py" params "$scratch/params.tk" 4095 # the limit: linear in the front end and codegen
  limited 3000000 "$tkc" "$scratch/params.tk" --emit=llvm -o /dev/null 2>"$scratch/err" || fail "$(tail -c 2000 "$scratch/err")";;
# 7: no offset reaches another buffer.
escape-bounds)
  expect 2 "out-of-bounds store: element 0 of the tile is 2\^40 bytes or more outside buffer 'x'" \
    "$tkc" run "$here/inputs/escape-bounds.tk" --kernel k --grid 1 --backend=interp x=zeros:f32:16 y=zeros:f32:16 off=549755813888 --save y="$scratch/y.npy"
  [ ! -e "$scratch/y.npy" ] || fail "a faulting run saved y";;
# 12: command-line numbers are checked, not thrown as std::invalid_argument.
option-numbers)
  expect 1 "--seed: needs an integer in \\[0, 2\\^64\\), got 'banana'" run_va x=zeros:f32:16 --seed banana
  expect 1 "--seed: needs an integer" run_va x=zeros:f32:16 --seed -1
  expect 1 "--time: needs a number of runs in \\[0, 1000000\\], got '99999999999'" run_va x=zeros:f32:16 --time 99999999999
  expect 1 "--time: needs a number of runs" run_va x=zeros:f32:16 --time 0x10
  expect 1 "--seed: needs an integer" run_va x=zeros:f32:16 --seed 18446744073709551616;;
# 13: a source file's name is only a comment in an AOT header (a newline in it ended the comment,
# and the rest of the name was code: #error).
header-file-name)
  name=$'nl\n#error injected\n.tk'
  cp "$va" "$scratch/$name"
  "$tkc" "$scratch/$name" --emit=header -o "$scratch/h.h" || fail "the header was not written"
  grep -q "^#error" "$scratch/h.h" && fail "the file's name broke out of the header's comment"
  grep -q "^// Generated by tkc from nl?#error injected?.tk" "$scratch/h.h" || fail "the name's comment: $(head -1 "$scratch/h.h")";;
*) fail "unknown case";;
esac
echo "PASS ($case_name)"
