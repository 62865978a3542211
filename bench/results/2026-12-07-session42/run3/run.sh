#!/usr/bin/env bash
# Session 42, run 3: STREAM_K sharing out only the last, part-filled wave (run 2 shared the wave
# before it too: a third slower). Per call against the same tiles without it, two rounds; the
# stream-K conformance cases on CUDA against the interpreter. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
# (Each ran with this function inline as `t`; it is bench/gpu-env.sh's fp8_persistent_time now.)
{
for round in 1 2; do
  for shape in "2048 4096 11008" "8192 8192 4096" "4096 4096 4096"; do
    fp8_persistent_time $shape 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1
    fp8_persistent_time $shape 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1 -D STREAM_K=true
    fp8_persistent_time $shape 132 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1
    fp8_persistent_time $shape 132 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1 -D STREAM_K=true
  done
done
} > $OUT/times.txt 2>&1
cat $OUT/times.txt
timeout 100 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k stream_k > $OUT/conformance.txt 2>&1
tail -1 $OUT/conformance.txt; grep -v "^ok" $OUT/conformance.txt | head -8
