#!/usr/bin/env bash
# Session 49, run 1 (pack by tools/gpu-check --bench; repository root, $OUT; carry .pack; about
# 8 minutes). Session 48's run 1 (never run) split in two: this the GEMM half, run 3 the accuracy.
# 1. FP8 GEMM tile shapes not timed since each program got its own code (session 28): 64x256
#    with two programs a CTA (ws 3) at GROUP_M 4 and 8, and 256x128 with a producer (ws 1);
#    and 128x128 ws 3 at GROUP_M 12, never timed: like 4 (and 6) it divides 132, so a CTA's two
#    programs (c, c + 132) work in one row of tiles and read the same A tiles, while its 264
#    tiles at a time span 12 rows by 22 columns (34 operand tiles a step against 4's 70);
#    beside the tuned configs (128x256 ws 1 in 3 and 4 stages, 128x128 ws 3 s6 GROUP_M 4), at
#    8192x8192x4096 per row and column and 2048x4096x4096 per tensor (the rows of session 47's
#    run 2 below 1.0x). `tkc run --time 200` (per call flushed and rested / back to back),
#    interleaved, two rounds.
# 2. The peers (cuBLASLt with and without fast accumulation, Triton's persistent TMA kernel with
#    its autotuning) and tk's autotuned kernels at both shapes, in the same call.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=
configs=("128 256 8 3 1 8" "128 256 8 4 1 8" "128 128 4 6 3 4" "128 128 4 6 3 12" "64 256 4 4 3 4" "64 256 4 4 3 8" "256 128 8 4 1 8")
for round in 1 2; do
  for shape in "1 8192 8192 4096" "0 2048 4096 4096"; do
    set -- $shape
    for c in "${configs[@]}"; do
      set -- $shape $c
      echo -n "mode $1 BM $5 BN $6 w$7 s$8 ws$9 G${10}: "
      FP8_SCALE_MODE=$1 fp8_persistent_time $2 $3 $4 $(( $9 == 3 ? 264 : 132 )) -D BM=$5 -D BN=$6 -D num_warps=$7 \
        -D num_stages=$8 -D warp_specialize=$9 -D GROUP_M=${10}
    done
  done
done 2>&1 | tee $OUT/timing.txt
bench_with_clocks fp8 300 --fp8-shapes 8192x8192x4096,2048x4096x4096
