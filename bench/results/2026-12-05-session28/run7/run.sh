#!/usr/bin/env bash
# Session 28, run 7: where ws 3 (now in uniform registers, the tuner's pick at 8192x8192x4096)
# still trails cuBLASLt's fast accumulation per row and column: per row/column timings of ws 3
# in 6 stages on clusters of 2 and at GROUP_M 4 and 16 beside the plain config, then
# bench/profile_fp8.py at 8192x8192x4096 (ws 3 s6 and ws 1 128x256 s4 against nvjet, base
# clocks). (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
run() { # label M N K [tkc -D args]
  label=$1; shift; M=$1 N=$2 K=$3; shift 3
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 --grid 264 "$@" --time 100 $(args $M $N $K) 2>&1 | tail -1 \
    | sed "s/^kernel 'fp8_matmul_persistent'/${M}x${N}x$K ws3 s6 $label/"
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096" "4096 4096 4096"; do
    run plain $shape
    run cluster2 $shape -D cluster_size=2
  done
  run group4 8192 8192 4096 -D GROUP_M=4
  run group16 8192 8192 4096 -D GROUP_M=16
done 2>&1 | tee $out/timing.txt
timeout 280 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile --config "128 128 6 4 3 1 8" --config "128 256 4 8 1 1 8" 2>&1 | tee $out/profile.md
tar -cJf $out/details-sass.tar.xz -C /tmp/profile $(cd /tmp/profile && ls | grep -E "details|sass") 2>/dev/null
ls $out
