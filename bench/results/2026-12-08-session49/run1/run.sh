#!/usr/bin/env bash
# Session 49, run 1 (session 48's run 1, unrun, plus the peers at both shapes) (pack by tools/gpu-check --bench; repository root, $OUT; carry .pack, which
# also holds stories260K.bin: llama2.c's trained 260K-parameter TinyStories model, blob
# 31d7cd1d04377d0f0a60f519aa1effd774c8eb57 of github.com/plctlab/rvspoc-s2311-llama2 at
# 2fa3f650cf1dc5a21e11c00a9c688be86947b061, sha256 9414d5a2...c8d6).
# 1. FP8 weights' accuracy on that trained model on the CUDA backend (bench/fp8_accuracy.py; its
#    heads widened exactly from 8 to 32), beside the interpreter's run made on the build machine.
# 2. FP8 GEMM tile shapes not timed since each program got its own code (session 28): 64x256
#    with two programs a CTA (ws 3) at GROUP_M 4 and 8, and 256x128 with a producer (ws 1),
#    and (session 49) 128x128 ws 3 at GROUP_M 12, untried: like 4 and 6 it divides 132, so a
#    CTA's two programs (c, c + 132) work in one row of tiles and share A's copies, and its
#    264 tiles at a time span 12 rows by 22 columns (34 operand tiles a step against 4's 70),
#    beside the tuned configs (128x256 ws 1 in 3 and 4 stages, 128x128 ws 3 s6 GROUP_M 4), at
#    8192x8192x4096 per row and column and 2048x4096x4096 per tensor (the rows of session 47's
#    run 2 below 1.0x). `tkc run --time 200` (per call flushed and rested / back to back),
#    interleaved, two rounds.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=
timeout 200 python3 bench/fp8_accuracy.py --llama2c .pack/stories260K.bin --tk-llama /tmp/tkgpu/tk/bin/tk-llama \
  --backend cuda --new-tokens 100 --out $OUT/accuracy 2>&1 | tee $OUT/accuracy.txt
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
# 3. The peers (cuBLASLt with and without fast accumulation, Triton's persistent TMA kernel with
#    its autotuning) and tk's autotuned fp8_matmul_persistent at both shapes, same run.
bench_with_clocks fp8 200 --fp8-shapes 8192x8192x4096,2048x4096x4096
