#!/usr/bin/env bash
# Session 46, run 4 (prepared, not run). Whether an L2 eviction policy on the k-loop's TMA
# copies makes them land in time. Session 29's profile (run 3 there) had tk's ws 3 at
# 8192x8192x4096 reading 331 MB from DRAM against nvjet's 235 (the operands are 64 MB: under
# GROUP_M's order all of B streams through L2 once a group of tile rows), and tk's consumers
# polling full barriers in 4.4% of the stall samples against nvjet's 0.7%.
# Build first, on the build machine: `git apply bench/results/2026-12-07-session46/run4/l2-policy-experiment.patch`
# (TK_EXPERIMENT_TMA_L2=P0,P1: the k-loop's i-th TMA operand, A then B, gets L2 policy Pi,
# first / last / normal, by createpolicy + .L2::cache_hint; whole tiles only, not on clusters),
# then tools/gpu-check, then revert the patch (git checkout of the two files is safe only
# with no other uncommitted work in them). Repository root, $OUT; carry .pack.
# `tkc run --time 200` (per call flushed and rested / back to back), 128x128 ws 3 s6 per row and
# column, the policies interleaved, two rounds; then Nsight Compute's DRAM bytes and L2 hit
# rate for the best policy against none.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 12288 4096"; do
    for g in 4 8; do
      for policy in none normal,last last,normal first,last; do
        if [ $policy = none ]; then unset TK_EXPERIMENT_TMA_L2; else export TK_EXPERIMENT_TMA_L2=$policy; fi
        echo -n "$policy "
        fp8_persistent_time $shape 264 -D BM=128 -D BN=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 \
          -D GROUP_M=$g
      done
    done
  done
done 2>&1 | tee $OUT/timing.txt
for policy in none normal,last; do
  if [ $policy = none ]; then unset TK_EXPERIMENT_TMA_L2; else export TK_EXPERIMENT_TMA_L2=$policy; fi
  timeout 120 ncu --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum -k regex:fp8 \
    --launch-count 1 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 \
    -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 --grid 264 \
    $(fp8_args 8192 8192 4096) 2>&1 | grep -E "dram__|lts__|gpu__time" | sed "s/^/$policy /"
done 2>&1 | tee $OUT/ncu.txt
