#!/usr/bin/env bash
# Session 45, run 3 (pack of bd5a17b or later: tools/gpu-check; repository root, $OUT; carry
# .pack): TAIL_SPLIT 2 with a bias (bd5a17b: both loops' TMA stores fit with the exchanges
# taking turns) on the GPU:
#  - the FP8 persistent conformance cases on the CUDA backend (the TAIL_SPLIT 2 bias case new);
#  - compute-sanitizer racecheck, synccheck and memcheck on the ws 3 s6 TAIL_SPLIT 2 config with
#    a bias, on 4 programs over 1000x1000 (a whole wave and a tail in halves);
#  - the persistent kernels' bits against the tiled kernel's with bias and residual, both
#    TAIL_SPLITs;
#  - its time with and without the bias at 2048x11008x4096 (where the tuner chose TAIL_SPLIT 2
#    in run 1), against ws 1 s5 TAIL_SPLIT 2 with the bias.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tk-cache-run3
timeout 200 python3 tests/conformance/run.py --tkc $tkc --backend cuda -j 8 -k fp8_matmul_persistent 2>&1 | tail -4 | tee $OUT/conformance.txt
for tool in racecheck synccheck memcheck; do
  timeout 90 compute-sanitizer --tool $tool $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 \
    -D HAS_BIAS=true -D TAIL_SPLIT=2 --grid 4 $(fp8_args 1000 1000 512 | sed 's/bias=zeros:bf16:1/bias=rand:bf16:1000/') 2>&1 \
    | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$tool 1000x1000x512 grid 4 HAS_BIAS TAIL_SPLIT 2: /"
done 2>&1 | tee $OUT/sanitize.txt
M=2048 N=4096 K=4096
args="$(fp8_args $M $N $K | sed 's/bias=zeros:bf16:1/bias=rand:bf16:'$N'/; s/residual=zeros:bf16:1/residual=rand:bf16:'${M}x$N'/')"
common="stdlib/std/fp8_matmul.tk --backend=cuda -D BK=128 -D SCALE_MODE=1 -D HAS_BIAS=true -D HAS_RESIDUAL=true"
$tkc run $common --kernel fp8_matmul -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 \
  --grid 'cdiv(M,BM)*cdiv(N,BN)' $args --save c=/tmp/c_tiled.npy > /dev/null
for tail in 1 2; do
  $tkc run $common --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 -D warp_specialize=3 \
    -D TAIL_SPLIT=$tail --grid 264 $args --save c=/tmp/c_p$tail.npy > /dev/null
done
python3 - <<'PY' | tee $OUT/bits.txt
import numpy as np
t = np.load("/tmp/c_tiled.npy").view(np.uint16)
p1 = np.load("/tmp/c_p1.npy").view(np.uint16)
for name in ("c_p1", "c_p2"):
    o = np.load("/tmp/%s.npy" % name).view(np.uint16)
    print("%s (bias and residual): %d of %d bf16 outputs differ from fp8_matmul 128x256 ws1's, %d from c_p1's"
          % (name, (o != t).sum(), t.size, (o != p1).sum()))
PY
bias_time() { # M N K -D...: fp8_matmul_persistent per row/column with a bias of N columns
  local M=$1 N=$2 K=$3; shift 3
  timeout 60 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BK=128 -D SCALE_MODE=1 \
    -D BM=128 -D BN=128 -D num_warps=4 -D TAIL_SPLIT=2 "$@" --time 200 \
    $(fp8_args $M $N $K | sed "s/bias=zeros:bf16:1/bias=rand:bf16:$N/") 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${M}x${N}x$K TAIL_SPLIT 2 $*/"
}
for pass in 1 2; do
  bias_time 2048 11008 4096 -D num_stages=6 -D warp_specialize=3 --grid 264
  bias_time 2048 11008 4096 -D num_stages=6 -D warp_specialize=3 -D HAS_BIAS=true --grid 264
  bias_time 2048 11008 4096 -D num_stages=5 -D warp_specialize=1 -D HAS_BIAS=true --grid 132
done 2>&1 | tee $OUT/bias-time.txt
# Does the tuner's final round (rested, interleaved) choose between GROUP_M 4 and 8 at
# 8192x8192x4096 per row/column as `tkc run --time` and bench/peers.py's per call rank them
# (GROUP_M 4 ahead by 1.5-12% in session 44's runs 4-5 and 0.383 ms in run 2)? Once after
# session 44 run 3's eight orders (the rounds at the power cap before it), twice over the two
# alone (shorter rounds), then each by `tkc run --time`.
tune8() {
  TK_CACHE_DIR= timeout 100 $tkc tune $1 --kernel fp8_matmul_persistent -D BK=128 -D SCALE_MODE=1 \
    --grid 'multiprocessors * resident_programs_per_multiprocessor' $(fp8_args 8192 8192 4096) 2>&1 | grep -v "^\["
}
{ tune8 bench/results/2026-12-07-session44/run3/fp8_group_m.tk
  tune8 bench/results/2026-12-07-session45/run3/fp8_g48.tk
  tune8 bench/results/2026-12-07-session45/run3/fp8_g48.tk
  for g in 4 8 4 8; do fp8_persistent_time 8192 8192 4096 264 -D BM=128 -D BN=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D GROUP_M=$g; done
} 2>&1 | tee $OUT/tune.txt
