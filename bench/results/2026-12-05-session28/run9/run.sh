#!/usr/bin/env bash
# Session 28, run 9: ws 3 on clusters without the programs' own copies again (tk-specialize-
# programs skips clustered kernels): the clustered ping-pong conformance cases on CUDA, and
# per row/column timings of ws 3 in 6 stages with and without clusters at 8192x8192x4096.
set -u
out=$OUT
. bench/gpu-env.sh
timeout 100 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k ping_pong_cluster > $out/conformance.txt 2>&1
tail -3 $out/conformance.txt
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
for cl in 1 2; do
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D cluster_size=$cl -D SCALE_MODE=1 --grid 264 \
    --time 100 $(args 8192 8192 4096) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/8192x8192x4096 ws3 s6 cl$cl/"
done 2>&1 | tee $out/timing.txt
