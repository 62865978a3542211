#!/usr/bin/env bash
# Session 42, run 7: the session's final code on the GPU. The whole conformance suite on CUDA
# against the interpreter; compute-sanitizer on a stream-K launch of the final form; STREAM_K per
# call against whole tiles at 4096^3 (one round). (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
timeout 240 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 > $OUT/conformance.txt 2>&1
tail -1 $OUT/conformance.txt; grep -v "^ok" $OUT/conformance.txt | grep -v "^not on\|^interpreter-only" | head -12
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda \
    -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 -D num_warps=4 -D warp_specialize=1 -D SCALE_MODE=1 -D STREAM_K=true \
    --grid 7 $(fp8_args 330 264 800) 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$tool stream_k 330x264x800 grid 7: /"
done | tee $OUT/sanitize.txt
{
  fp8_persistent_time 4096 4096 4096 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1
  fp8_persistent_time 4096 4096 4096 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 -D STREAM_K=true
} | tee $OUT/times.txt
