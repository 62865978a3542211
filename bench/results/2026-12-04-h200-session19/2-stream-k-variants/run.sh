#!/usr/bin/env bash
# Session 19 run 2: why run 1's stream-K was slower. Variants of fp8_matmul_persistent with
# STREAM_K (.pack/variants): v1 without the fix-up (wrong sums, timing only), v2 with the
# partial's store and the counter but without adding the other's partial, v3 storing c without
# TMA; the kernel without STREAM_K; a shape whose tiles fill whole waves (nothing shared). Then
# the SASS of the stream-K kernel (spills) and Nsight Compute on it.
out=$OUT
mkdir -p /tmp/new && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/new/tk/bin
tkc=/tmp/new/tk/bin/tkc
run() { # stdlib dir, then tkc run's arguments
  local lib=$1; shift
  TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk "$@" --time 50 2>&1 | tail -1
}
args() { # M N K
  local m=$1 n=$2 k=$3
  echo "a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n
    workspace=zeros:f32:$((2 * 132 * 128 * 256)) counters=zeros:i32:264"
}
s3="-D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 -D SCALE_MODE=0"
{
for shape in "2048 4096 4096" "8192 8192 4096" "4224 4096 4096"; do
  a=$(args $shape)
  echo "== $shape s3: STREAM_K=false, then STREAM_K=true: v0 (as committed), v1 (no fix-up), v2 (no add), v3 (no TMA store)"
  run stdlib --kernel fp8_matmul_persistent $s3 -D STREAM_K=false --grid 132 $a
  run stdlib --kernel fp8_matmul_persistent $s3 -D STREAM_K=true --grid 132 $a
  for v in v1 v2 v3; do run .pack/variants/$v --kernel fp8_matmul_persistent $s3 -D STREAM_K=true --grid 132 $a; done
done
} 2>&1 | tee $out/timing.txt
TK_STDLIB_DIR=stdlib $tkc stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $s3 -D STREAM_K=true --arch sm_90a \
  --divisibility lda=16 --divisibility ldb=16 --divisibility ldc=16 --divisibility K=16 --divisibility N=16 \
  --divisibility M=16 --emit cubin -o /tmp/sk.cubin && (cuobjdump -sass /tmp/sk.cubin || nvdisasm /tmp/sk.cubin) > $out/sk.sass 2>&1
xz -9 $out/sk.sass
for sk in false true; do
  echo "-- ncu 2048x4096x4096 STREAM_K=$sk"
  TK_STDLIB_DIR=stdlib ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $s3 -D STREAM_K=$sk --grid 132 $(args 2048 4096 4096) 2>&1 \
    | grep -E "Duration|Throughput|Stall|Warp Cycles|L2 Hit|DRAM|Elapsed|Registers" | head -40
done 2>&1 | tee $out/ncu.txt
