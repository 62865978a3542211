#!/usr/bin/env bash
# Session 42, run 5: what STREAM_K's parts cost, by leaving them out (variants.py; wrong outputs
# on purpose, times only). 128x256 tiles with a producer in 3 stages (the 4 of runs 2-4 leave no
# shared memory for nofixup's sum), per call: without STREAM_K, with it, and its nowait, noread
# and nofixup copies, at 4096^3 and 2048x4096x11008, two rounds. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
here=bench/results/2026-12-07-session42/run5
python3 $here/variants.py stdlib /tmp/v
cfg="-D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1"
{
for round in 1 2; do
  for shape in "4096 4096 4096" "2048 4096 11008"; do
    echo "base: $(fp8_persistent_time $shape 132 $cfg)"
    echo "stream_k: $(fp8_persistent_time $shape 132 $cfg -D STREAM_K=true)"
    for v in nowait noread nofixup; do
      echo "$v: $(FP8_SOURCE=/tmp/v/$v/std/fp8_matmul.tk fp8_persistent_time $shape 132 $cfg -D STREAM_K=true)"
    done
  done
done
} > $OUT/times.txt 2>&1
cat $OUT/times.txt
