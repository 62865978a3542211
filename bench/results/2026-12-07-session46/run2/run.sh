#!/usr/bin/env bash
# Session 46, run 2 (pack of 0a135f7; repository root, $OUT; carry .pack): fp8_matmul_persistent
# per row and column, 128x128x128 ws 3 in 6 stages, GROUP_M 4 and 8, with and without clusters
# of 2 CTAs, at 8192x8192x4096 and 4096^3 on this machine (session 32 measured clusters only on
# an H200 and only at GROUP_M 8; GROUP_M 4 came in session 44). `tkc run --time 200` (per call
# flushed and rested / back to back), two rounds interleaved.
set -u
. bench/gpu-env.sh
for round in 1 2; do
  for shape in "8192 8192 4096" "4096 4096 4096"; do
    for g in 4 8; do
      for cl in 1 2; do
        fp8_persistent_time $shape 264 -D BM=128 -D BN=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 \
          -D GROUP_M=$g -D cluster_size=$cl
      done
    done
  done
done 2>&1 | tee $OUT/timing.txt
