#!/usr/bin/env bash
# Session 46, run 4 (prepared, not run; pack of 4df850a or later by tools/gpu-check; repository
# root, $OUT; carry .pack). Whether an L2 eviction priority on the k-loop's TMA copies makes them
# land in time. Session 29's profile (run 3 there) had tk's ws 3 at 8192x8192x4096 reading 331
# MB from DRAM against nvjet's 235 (the operands are 64 MB: under GROUP_M's order all of B
# streams through L2 once a group of tile rows), and tk's consumers polling full barriers in
# 4.4% of the stall samples against nvjet's 0.7%. Since 4df850a a load's `evict` reaches its
# TMA copies (.L2::cache_hint); the variants are copies of stdlib/std/fp8_matmul.tk with
# `evict` on A's and B's loads (FP8_SOURCE). `tkc run --time 200` (per call flushed and rested
# / back to back), 128x128 ws 3 s6 per row and column, the variants interleaved, two rounds;
# then Nsight Compute's DRAM bytes and L2 hit rate for none against B kept.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=
variant() { # variant A_EVICT B_EVICT: the stdlib file with those priorities (normal: none)
  local file=/tmp/fp8-$1-$2.tk
  sed -e "s/let ta = load(pa, /let ta = load(pa, evict = \"$1\", /" -e "s/let tb = load(pb, /let tb = load(pb, evict = \"$2\", /" \
    -e 's/, evict = "normal"//' stdlib/std/fp8_matmul.tk > $file
  echo $file
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 12288 4096"; do
    for g in 4 8; do
      for policy in "normal normal" "normal last" "last normal" "first last"; do
        echo -n "A,B evict ${policy/ /,}: "
        FP8_SOURCE=$(variant $policy) fp8_persistent_time $shape 264 -D BM=128 -D BN=128 -D num_stages=6 -D num_warps=4 \
          -D warp_specialize=3 -D GROUP_M=$g
      done
    done
  done
done 2>&1 | tee $OUT/timing.txt
for policy in "normal normal" "normal last"; do
  timeout 120 ncu --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum -k regex:fp8 \
    --launch-count 1 $tkc run $(variant $policy) --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 --grid 264 $(fp8_args 8192 8192 4096) 2>&1 \
    | grep -E "dram__|lts__|gpu__time" | sed "s/^/${policy/ /,} /"
done 2>&1 | tee $OUT/ncu.txt
