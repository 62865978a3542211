#!/usr/bin/env bash
# Session 28, run 8: run 7 timed ws 3 in 6 stages on clusters of 2 at 1.8x the time without
# (session 27's ws 3 in 5 stages on clusters: 0.41 ms at 8192x8192x4096, 5% slower). Here: the
# cluster conformance cases on CUDA against the interpreter, and per row/column timings of
# ws 3 and ws 1 in 5 stages with and without clusters. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 150 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k cluster > $out/conformance.txt 2>&1
tail -3 $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head -5
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
for ws in 1 3; do for st in 5 6; do for cl in 1 2; do
  [ $ws = 1 ] && [ $st = 6 ] && continue
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=$st -D num_warps=4 -D warp_specialize=$ws -D cluster_size=$cl -D SCALE_MODE=1 --grid $((ws == 3 ? 264 : 132)) \
    --time 100 $(args 8192 8192 4096) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/8192x8192x4096 ws$ws s$st cl$cl/"
done; done; done 2>&1 | tee $out/timing.txt
