#!/usr/bin/env bash
# Session 20 run 1: the whole conformance suite on CUDA against the interpreter at session 19's
# final code (6bbb80a: loaded accumulators on the tensor cores, TMA stores with counters), the
# sanitizers on tma_store_counted; then a first look at TAIL_SPLIT in fp8_matmul_persistent
# (the tiles after the last whole wave cut by columns) at 2 stages, where both loops' rings fit
# without sharing bytes: 2048x11008x4096 (688 tiles of 128x256: 5 waves + 28) and 8192x8192x4096.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
args() { # M N K
  local m=$1 n=$2 k=$3
  echo "a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n"
}
{
for shape in "2048 11008 4096" "8192 8192 4096"; do
  for st in 2 3; do
    for t in 1 2 4; do
      [ $st = 3 ] && [ $t != 1 ] && continue
      echo "== $shape num_stages=$st TAIL_SPLIT=$t"
      TK_STDLIB_DIR=stdlib $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=256 -D BK=128 \
        -D num_warps=8 -D num_stages=$st -D SCALE_MODE=1 -D TAIL_SPLIT=$t --grid 132 $(args $shape) --time 50 2>&1 | tail -1
    done
  done
done
} 2>&1 | tee $out/timing.txt
TK_STDLIB_DIR=$PWD/stdlib timeout 420 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
for tool in memcheck racecheck synccheck; do
  echo "-- $tool tma_store_counted M=200 N=136 K=96 on 5 programs"
  compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/tensor_cores.tk \
    --kernel tma_store_counted --backend=cuda --grid 5 a=rand:f16:200x96 b=rand:f16:96x136 c=zeros:f16:200x136 \
    done=zeros:i32:1 M=200 N=136 K=96 2>&1 | tail -1
done 2>&1 | tee $out/sanitizer.txt
