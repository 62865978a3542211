#!/usr/bin/env bash
# Session 42, run 2: fp8_matmul_persistent's STREAM_K (the last wave and the one before shared
# out by k-steps). Per call (tkc run --time 200, L2 flushed) against the same tiles without it at
# the worst shapes; the persistent conformance cases on CUDA against the interpreter;
# compute-sanitizer on a stream-K launch; then bench/run-all fp8 on three shapes (tk tuned with
# the two STREAM_K configs in its space, against cuBLASLt and Triton). (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
# (Each ran with this function inline as `t`; it is bench/gpu-env.sh's fp8_persistent_time now.)
{
for round in 1 2; do
  for shape in "2048 4096 11008" "8192 8192 4096"; do
    fp8_persistent_time $shape 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1
    fp8_persistent_time $shape 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1 -D STREAM_K=true
    fp8_persistent_time $shape 132 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1 -D STREAM_K=true
    fp8_persistent_time $shape 264 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 -D warp_specialize=3
  done
done
} > $OUT/times.txt 2>&1
cat $OUT/times.txt
timeout 150 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_matmul_persistent > $OUT/conformance.txt 2>&1
tail -2 $OUT/conformance.txt; grep -v "^ok" $OUT/conformance.txt | head -8
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda \
    -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 -D num_warps=4 -D warp_specialize=1 -D SCALE_MODE=1 -D STREAM_K=true \
    --grid 7 $(fp8_args 330 264 800) 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$tool stream_k 330x264x800 grid 7: /"
done | tee $OUT/sanitize.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $OUT/clocks.csv &
sampler=$!
OUT=$OUT/fp8 timeout 270 bench/run-all --fp8-shapes 2048x4096x11008,8192x8192x4096,4096x4096x4096 fp8 > /dev/null 2>&1
kill $sampler
rm -f $OUT/fp8/summary.md
grep "^fp8\|Worst\|failed\|took" $OUT/fp8/log.txt | cut -c1-240
