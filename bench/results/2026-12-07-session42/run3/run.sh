#!/usr/bin/env bash
# Session 42, run 3: STREAM_K sharing out only the last, part-filled wave (run 2 shared the wave
# before it too: a third slower). Per call against the same tiles without it, two rounds; the
# stream-K conformance cases on CUDA against the interpreter. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tkcache
t() { # M N K grid -D...
  local M=$1 N=$2 K=$3 grid=$4; shift 4
  timeout 60 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BK=128 -D SCALE_MODE=1 "$@" \
    --grid $grid --time 200 $(fp8_args $M $N $K) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${M}x${N}x$K $* grid $grid/"
}
{
for round in 1 2; do
  for shape in "2048 4096 11008" "8192 8192 4096" "4096 4096 4096"; do
    t $shape 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1
    t $shape 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1 -D STREAM_K=true
    t $shape 132 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1
    t $shape 132 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1 -D STREAM_K=true
  done
done
} > $OUT/times.txt 2>&1
cat $OUT/times.txt
timeout 100 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k stream_k > $OUT/conformance.txt 2>&1
tail -1 $OUT/conformance.txt; grep -v "^ok" $OUT/conformance.txt | head -8
