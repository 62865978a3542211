#!/usr/bin/env bash
# Session 18 run 2: a TMA pipeline of 3 stages with its MMAs in flight and no producer copied one
# iteration ahead (D = S - 2); now two (D = S - 1, refilling the stage iteration k - 1 released).
# Each s3 kernel by `tkc run --time` with the build before (old) and after (new), same machine,
# interleaved; the matmul conformance cases on CUDA and the sanitizers on the new build.
out=$OUT
for v in old new; do mkdir -p /tmp/$v; done
tar -xJf .pack/tk-gpu-old.tar.xz -C /tmp/old && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
run() { # version, then tkc run's arguments
  local v=$1; shift
  LD_LIBRARY_PATH=/tmp/$v/tk/bin TK_STDLIB_DIR=stdlib /tmp/$v/tk/bin/tkc run "$@" --time 50 2>&1 | tail -1
}
f8="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192 scale_b=rand:f32:8192
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
f4="a=rand:f8e4m3:4096x4096 b=rand:f8e4m3:4096x4096 c=zeros:bf16:4096x4096 scale_a=rand:f32:4096 scale_b=rand:f32:4096
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:1 counters=zeros:i32:1 M=4096 N=4096 K=4096 lda=4096 ldb=4096 ldc=4096 ldr=4096 ldm=4096"
h8="a=rand:f16:8192x8192 b=rand:f16:8192x8192 c=zeros:f16:8192x8192 M=8192 N=8192 K=8192 lda=8192 ldb=8192 ldc=8192"
big="-D BM=128 -D BN=256 -D BK=128 -D num_warps=8"
{
for round in 1 2; do
  for v in old new; do
    for mode in 0 1; do
      echo "== $v round $round fp8_matmul_persistent 8192x8192x4096 SCALE_MODE=$mode s3 (no producer)"
      run $v stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $big -D num_stages=3 -D warp_specialize=0 -D SCALE_MODE=$mode --grid 132 $f8
    done
    echo "== $v round $round fp8_matmul_persistent 8192x8192x4096 SCALE_MODE=0 s4 (no producer; unchanged code)"
    run $v stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $big -D num_stages=4 -D warp_specialize=0 -D SCALE_MODE=0 --grid 132 $f8
    echo "== $v round $round fp8_matmul_persistent 8192x8192x4096 SCALE_MODE=0 s3 producer (unchanged code)"
    run $v stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $big -D num_stages=3 -D warp_specialize=1 -D SCALE_MODE=0 --grid 132 $f8
    for s in 3 4; do
      echo "== $v round $round fp8_matmul 4096^3 SCALE_MODE=0 s$s (no producer)"
      run $v stdlib/std/fp8_matmul.tk --kernel fp8_matmul $big -D num_stages=$s -D warp_specialize=0 -D SPLIT_K=1 --grid 512 $f4
    done
    echo "== $v round $round matmul (f16) 8192^3 128x256 BK64 s3"
    run $v examples/matmul.tk --kernel matmul -D BM=128 -D BN=256 -D BK=64 -D num_warps=8 -D num_stages=3 --grid 2048 $h8
    echo "== $v round $round matmul_persistent (f16) 8192^3 128x256 BK64 s3"
    run $v examples/matmul.tk --kernel matmul_persistent -D BM=128 -D BN=256 -D BK=64 -D num_warps=8 -D num_stages=3 -D warp_specialize=0 --grid 132 $h8
  done
done
} 2>&1 | tee $out/timing.txt
export LD_LIBRARY_PATH=/tmp/new/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/new/tk/bin/tkc
for tool in memcheck racecheck synccheck; do
  for kernel in fp8_matmul_persistent fp8_matmul; do
    echo "-- $tool $kernel s3 no producer M=200 N=136 K=1056"
    compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk --kernel $kernel --backend=cuda \
      -D BM=128 -D BN=128 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=0 -D SCALE_MODE=1 -D SPLIT_K=1 \
      --grid 2 a=rand:f8e4m3:200x1056 b=rand:f8e4m3:136x1056 c=zeros:bf16:200x136 \
      scale_a=rand:f32:200 scale_b=rand:f32:136 bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:1 counters=zeros:i32:1 \
      M=200 N=136 K=1056 lda=1056 ldb=1056 ldc=136 ldr=136 ldm=136 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
TK_STDLIB_DIR=$PWD/stdlib timeout 300 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 -k matmul 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
