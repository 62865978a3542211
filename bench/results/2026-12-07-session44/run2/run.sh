#!/usr/bin/env bash
# Session 44, run 2 (pack of 641ffa8, tools/gpu-check; repository root, $OUT; carry .pack):
# 8192x8192x4096, the FP8 GEMM's worst row (session 43, run 2: per row/column 0.964x cuBLASLt's
# fast accumulation on an H100). `tkc tune` on fp8_variants.tk, a copy of std/fp8_matmul.tk whose
# fp8_matmul_persistent space is the 128x128 two-programs-a-CTA config (ws 3, 6 stages: the
# tuned winner there) and its variants: clusters of 2 (TMA multicast), GROUP_M 4/16/32, 5 stages,
# TAIL_SPLIT 2. Per row/column and per tensor, each with the tuner's three rounds and the final
# interleaved round of the configs within 5% of the best.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tk-cache-run2
M=8192 N=8192 K=4096
for mode in 1 0; do
  echo "== SCALE_MODE=$mode" | tee -a $OUT/tune.txt
  timeout 200 $tkc tune bench/results/2026-12-07-session44/run2/fp8_variants.tk --kernel fp8_matmul_persistent \
    -D BK=128 -D SCALE_MODE=$mode --grid 'multiprocessors * resident_programs_per_multiprocessor' \
    $(fp8_args $M $N $K) >> $OUT/tune.txt 2>&1
done
cat $OUT/tune.txt
