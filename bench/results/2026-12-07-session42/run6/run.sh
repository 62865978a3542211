#!/usr/bin/env bash
# Session 42, run 6: f32 stores and loads in the accumulator's layout (tk-assign-layouts' store
# rule and loop starts; no exchange through shared memory for stream-K's and split-K's partials
# or f32 results). STREAM_K per call against whole tiles first (run 5 put 0.022 ms of its
# 0.027 ms loss at 4096^3 in those exchanges), then the whole conformance suite on CUDA against
# the interpreter: every kernel whose f32 stores changed. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
{
for round in 1 2; do
  for shape in "4096 4096 4096" "2048 4096 11008" "8192 8192 4096"; do
    for cfg in "-D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1" \
               "-D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1"; do
      fp8_persistent_time $shape 132 $cfg
      fp8_persistent_time $shape 132 $cfg -D STREAM_K=true
    done
  done
done
} > $OUT/times.txt 2>&1
cat $OUT/times.txt
timeout 330 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 > $OUT/conformance.txt 2>&1
tail -3 $OUT/conformance.txt; grep -v "^ok" $OUT/conformance.txt | head -12
