#!/usr/bin/env bash
# Session 42, run 8: tk-tma-stores keeping the whole waves' TMA stores beside STREAM_K's plain
# stores to c (which now wait for the copies). The persistent kernel's conformance cases on CUDA
# against the interpreter, compute-sanitizer on a stream-K launch, then STREAM_K per call against
# whole tiles at three shapes. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
timeout 120 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_matmul_persistent > $OUT/conformance.txt 2>&1
tail -1 $OUT/conformance.txt; grep "^FAIL" $OUT/conformance.txt | head
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda \
    -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 -D num_warps=4 -D warp_specialize=1 -D SCALE_MODE=1 -D STREAM_K=true \
    --grid 7 $(fp8_args 330 264 800) 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$tool stream_k 330x264x800 grid 7: /"
done | tee $OUT/sanitize.txt
cfg="-D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1"
for shape in "4096 4096 4096" "2048 4096 11008" "8192 8192 4096"; do
  fp8_persistent_time $shape 132 $cfg
  fp8_persistent_time $shape 132 $cfg -D STREAM_K=true
done | tee $OUT/times.txt
