#!/usr/bin/env bash
# For the next GPU session (not run in session 20: no GPU after run 3). The new conformance
# cases tensor_cores.tma_store_waves and _ws (a persistent kernel with two loops over tiles, both
# by TMA loads and TMA stores to one matrix, their rings, staging buffers and exchanges sharing
# bytes; _ws with one producer warpgroup filling both loops, a handoff barrier between) and the
# other tensor-core and FP8 cases on CUDA against the interpreter, memcheck, racecheck and
# synccheck on its kernels, then TAIL_SPLIT on the 128x128 producer config at 2048x11008x4096.
# Pack: tools/gpu-check --bench at the session's final commit.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
for filter in tensor_cores fp8; do
  TK_STDLIB_DIR=$PWD/stdlib timeout 170 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 \
    -k $filter 2>&1 | grep -v "^ok "
done | tee $out/conformance.txt
for tool in memcheck racecheck synccheck; do
  for ws in 0 1; do
    echo "-- $tool tma_store_waves warp_specialize=$ws M=200 N=136 K=96 on 5 programs"
    timeout 30 compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/tensor_cores.tk \
      --kernel tma_store_waves -D num_warps=4 -D num_stages=4 -D warp_specialize=$ws --backend=cuda --grid 5 \
      a=rand:f16:200x96 b=rand:f16:96x136 c=zeros:f16:200x136 M=200 N=136 K=96 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
lib=/tmp/taillib; mkdir -p $lib/std
cp bench/results/2026-12-04-h200-session20/1-conformance-tail/fp8_matmul.tail-split.tk $lib/std/fp8_matmul.tk
cp stdlib/std/math.tk $lib/std/
args() { # M N K
  local m=$1 n=$2 k=$3
  echo "a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n"
}
{
for round in 1 2; do
  for cfg in "128 4 5 1" "128 4 5 2" "128 4 4 2" "128 4 4 4" "256 8 3 1" "256 8 3 4"; do
    set -- $cfg
    echo "== round $round 2048 11008 4096 BN=$1 num_warps=$2 num_stages=$3 warp_specialize=1 TAIL_SPLIT=$4"
    TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=$1 -D BK=128 \
      -D num_warps=$2 -D num_stages=$3 -D warp_specialize=1 -D SCALE_MODE=0 -D TAIL_SPLIT=$4 --grid 132 \
      $(args 2048 11008 4096) --time 50 2>&1 | tail -1  # (12 runs: about 60 s)
  done
done
} 2>&1 | tee $out/timing.txt
