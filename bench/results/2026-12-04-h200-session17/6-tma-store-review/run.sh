#!/usr/bin/env bash
# Session 17 run 6: TMA stores after the review (the pass after tk-assign-layouts, its new
# limits, no copy of an empty rectangle). The matmul conformance cases (every matmul and FP8
# kernel) on CUDA against the interpreter; memcheck and racecheck on the persistent FP8 kernel
# (ragged 200x136, with and without a producer); 8192x8192x4096 timed as in run 2.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 -k matmul 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
for tool in memcheck racecheck; do
  for ws in 0 1; do
    echo "-- $tool fp8_matmul_persistent warp_specialize=$ws M=200 N=136 K=544"
    compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda \
      -D BM=128 -D BN=128 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=$ws -D SCALE_MODE=1 \
      --grid 2 a=rand:f8e4m3:200x544 b=rand:f8e4m3:136x544 c=zeros:bf16:200x136 \
      scale_a=rand:f32:200 scale_b=rand:f32:136 bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 \
      M=200 N=136 K=544 lda=544 ldb=544 ldc=136 ldr=136 ldm=136 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
args="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192 scale_b=rand:f32:8192
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
for cfg in "BN=256 -D BK=128 -D num_warps=8 -D num_stages=3" "BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1"; do
  for mode in 0 1; do
    echo "== SCALE_MODE=$mode -D BM=128 -D $cfg"
    $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D $cfg -D SCALE_MODE=$mode \
      --grid 132 $args --time 100 2>&1 | tail -1
  done
done 2>&1 | tee $out/timing.txt
