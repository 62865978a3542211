#!/usr/bin/env bash
# Next session's first GPU run (written in session 31, whose GPU time ran out before it): the
# clustered FP8 kernels with the wgmma wait on both paths after a tile's k-loop (3792b87) and
# with each program its own copy of the code on clusters too (the commit after). ptxas no longer
# reports C7517/C7518 for them; are clusters now faster?
#  1. conformance on CUDA against the interpreter: -k cluster (ws 1 and ws 3, the copies), and
#     synccheck / racecheck on ws 3 on clusters;
#  2. per row/column, per call, two rounds: ws 1 s5 and ws 3 s6, without clusters and on
#     clusters of 2, at 8192x8192x4096, 2048x11008x4096 and 4096^3.
# About 5 minutes. (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 150 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k cluster > $out/conformance.txt 2>&1
grep -E "conformance cases passed|^FAIL|mismatch" $out/conformance.txt | head -6
{
for tool in synccheck racecheck; do fp8_sanitize $tool 8 520 264 576 -D cluster_size=2; done
} 2>&1 | tee $out/sanitizers.txt
cluster_time() { # M N K stages ws cluster grid
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=$4 -D num_warps=4 -D warp_specialize=$5 -D cluster_size=$6 -D SCALE_MODE=1 --grid $7 --time 100 \
    $(fp8_args $1 $2 $3) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 s$4 ws$5 cluster$6/"
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096" "4096 4096 4096"; do
    for cfg in "5 1 1 132" "5 1 2 132" "6 3 1 264" "6 3 2 264"; do cluster_time $shape $cfg; done
  done
done 2>&1 | tee $out/timing.txt
