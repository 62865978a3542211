#!/usr/bin/env bash
# Session 45, run 1 (pack of 3ed6fb4, session 44's last commit: tools/gpu-check; repository root,
# $OUT; carry .pack):
#  - bench/run-all fp8: the FP8 GEMM's numbers of record with session 44's GROUP_M 4 config and
#    the tuner's rested final round (session 43's run 4, never run);
#  - session 44 run 5's bits check again without the bias (with it the persistent kernel's ws 3
#    s6 config does not fit in shared memory): do the tiled and the persistent kernel give the
#    same bits on the GPU, as on the interpreter?
set -u
. bench/gpu-env.sh
M=2048 N=4096 K=4096
args="$(fp8_args $M $N $K | sed 's/residual=zeros:bf16:1/residual=rand:bf16:'${M}x$N'/')"
common="stdlib/std/fp8_matmul.tk --backend=cuda -D BK=128 -D SCALE_MODE=1 -D HAS_RESIDUAL=true"
$tkc run $common --kernel fp8_matmul -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 \
  --grid 'cdiv(M,BM)*cdiv(N,BN)' $args --save c=/tmp/c_tiled.npy > /dev/null
for tail in 1 2; do
  $tkc run $common --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 -D warp_specialize=3 \
    -D TAIL_SPLIT=$tail --grid 264 $args --save c=/tmp/c_p$tail.npy > /dev/null
done
$tkc run $common --kernel fp8_matmul_persistent -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1 \
  --grid 132 $args --save c=/tmp/c_p256.npy > /dev/null
python3 - <<'PY' | tee $OUT/bits.txt
import numpy as np
t = np.load("/tmp/c_tiled.npy").view(np.uint16)
for name in ("c_p1", "c_p2", "c_p256"):
    o = np.load("/tmp/%s.npy" % name).view(np.uint16)
    d = o != t
    print("fp8_matmul 128x256 ws1 against %s: %d of %d bf16 outputs differ%s" % (name, d.sum(), t.size,
          "" if not d.any() else ", most by %d ulp" % np.abs(o[d].astype(np.int32) - t[d].astype(np.int32)).max()))
PY
bench_with_clocks fp8 480
