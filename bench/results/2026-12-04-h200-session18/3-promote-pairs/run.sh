#!/usr/bin/env bash
# Session 18 run 3: FP8 GEMM with each k-step's product promoted to f32 (PROMOTE, and block-wise
# scales, SCALE_MODE 2), two k-steps an iteration so that the first one's f32 addition overlaps
# the second one's MMAs (new stdlib) against one a step (old stdlib, the same tkc: 4c3c206's),
# `tkc run --time 50` at 8192x8192x4096 per row/column; then the FP8 conformance cases on CUDA
# and the sanitizers on the new form.
out=$OUT
mkdir -p /tmp/tk && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tk
export LD_LIBRARY_PATH=/tmp/tk/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tk/tk/bin/tkc
{ date -u; cat /tmp/tk/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
mkdir -p /tmp/oldlib/std && cp stdlib/std/*.tk /tmp/oldlib/std/ && git show 4c3c206:stdlib/std/fp8_matmul.tk > /tmp/oldlib/std/fp8_matmul.tk  # (run here: the old stdlib was shipped beside run.sh)
f8="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192 scale_b=rand:f32:8192
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
f8b="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192x32 scale_b=rand:f32:64x32
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
run() { # stdlib dir, args...
  local lib=$1; shift
  TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --grid 132 "$@" --time 50 2>&1 | tail -1
}
{
for mode in "1 PROMOTE" "2 blockwise"; do
  set -- $mode; m=$1; what=$2
  args=$f8; [ $m = 2 ] && args=$f8b
  extra="-D SCALE_MODE=$m"; [ $m = 1 ] && extra="$extra -D PROMOTE=1"
  echo "== FAST (no promotion) SCALE_MODE=1 128x256x128 s3 producer, for reference"
  run stdlib -D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 -D SCALE_MODE=1 $f8
  for cfg in "BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1" "BN=256 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=0" \
             "BN=128 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=1" "BN=128 -D BK=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1"; do
    echo "== old $what -D BM=128 -D $cfg"; run /tmp/oldlib -D BM=128 -D $cfg $extra $args
  done
  for cfg in "BN=128 -D BK=128 -D num_warps=8 -D num_stages=2 -D warp_specialize=0" "BN=128 -D BK=128 -D num_warps=8 -D num_stages=2 -D warp_specialize=1" \
             "BN=128 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1" "BN=128 -D BK=64 -D num_warps=8 -D num_stages=4 -D warp_specialize=1" \
             "BN=128 -D BK=64 -D num_warps=8 -D num_stages=6 -D warp_specialize=0" "BN=128 -D BK=128 -D num_warps=4 -D num_stages=3 -D warp_specialize=1" \
             "BN=256 -D BK=64 -D num_warps=8 -D num_stages=3 -D warp_specialize=1"; do
    echo "== new $what -D BM=128 -D $cfg"; run stdlib -D BM=128 -D $cfg $extra $args
  done
done
} 2>&1 | tee $out/timing.txt
for tool in memcheck racecheck synccheck; do
  for ws in 0 1; do
    echo "-- $tool fp8_matmul PROMOTE split 3 warp_specialize=$ws M=200 N=136 K=1056"
    compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul --backend=cuda \
      -D BM=128 -D BN=128 -D BK=128 -D num_warps=8 -D num_stages=2 -D warp_specialize=$ws -D SCALE_MODE=1 -D SPLIT_K=3 -D PROMOTE=1 \
      --grid 4,3 a=rand:f8e4m3:200x1056 b=rand:f8e4m3:136x1056 c=zeros:bf16:200x136 \
      scale_a=rand:f32:200 scale_b=rand:f32:136 bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:81600 counters=zeros:i32:4 \
      M=200 N=136 K=1056 lda=1056 ldb=1056 ldc=136 ldr=136 ldm=136 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
TK_STDLIB_DIR=$PWD/stdlib timeout 300 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 -k fp8_matmul 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
