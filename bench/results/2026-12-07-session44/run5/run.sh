#!/usr/bin/env bash
# Session 44, run 5 (pack of the session's last code commit, 3e7bfaa or later: tools/gpu-check; repository root, $OUT; carry .pack), ordered for a short
# device budget:
#  - the per-call rest (7d85c63 and its review fixes): the GPU unit tests of the JIT, and `tkc tune` over run 3's tile
#    orders at 8192x8192x4096 (the final round now rests before each run);
#  - run5/ab.py: the persistent kernel's tile orders against cuBLASLt fast accumulation, per call
#    (with and without bench/peers.py's 200 us spin) and back to back, at 8192x8192x4096, 4096^3
#    and 2048x12288x4096;
#  - the tiled and persistent kernels' bits on the GPU.
set -u
. bench/gpu-env.sh
export TK_STDLIB_DIR=$PWD/stdlib TKC_LIBRARY=$(ls /tmp/tkgpu/tk/bin/libtkc.so.*) PYTHONPATH=$PWD/runtime/python
export TK_CACHE_DIR=/tmp/tk-cache-run5
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='JitGpu*:CudaBackend*' 2>&1 | tail -8 > $OUT/gtest.txt
grep -E "PASSED|FAILED" $OUT/gtest.txt
for shape in "8192 8192 4096"; do
  set -- $shape
  echo "== $1x$2x$3 SCALE_MODE=1" >> $OUT/tune.txt
  timeout 100 $tkc tune bench/results/2026-12-07-session44/run3/fp8_group_m.tk --kernel fp8_matmul_persistent \
    -D BK=128 -D SCALE_MODE=1 --grid 'multiprocessors * resident_programs_per_multiprocessor' \
    $(fp8_args $1 $2 $3) 2>&1 | grep -v "^\[" >> $OUT/tune.txt
done
cat $OUT/tune.txt
timeout 150 python3 bench/results/2026-12-07-session44/run5/ab.py 8192x8192x4096 4096x4096x4096 2048x12288x4096 \
  2>&1 | tee -a $OUT/ab.txt
# Do the tiled and the persistent kernel give the same bits on the GPU, as they do on the
# interpreter (run 1's prefill tokens differed between them)? 2048x4096x4096 per row/column
# with bias and residual: fp8_matmul 128x256 ws1 s3 against fp8_matmul_persistent 128x128 ws3
# s6, whole tiles and TAIL_SPLIT 2.
M=2048 N=4096 K=4096
args="$(fp8_args $M $N $K | sed 's/bias=zeros:bf16:1/bias=rand:bf16:'$N'/; s/residual=zeros:bf16:1/residual=rand:bf16:'${M}x$N'/')"
common="stdlib/std/fp8_matmul.tk --backend=cuda -D BK=128 -D SCALE_MODE=1 -D HAS_BIAS=true -D HAS_RESIDUAL=true"
$tkc run $common --kernel fp8_matmul -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 \
  --grid 'cdiv(M,BM)*cdiv(N,BN)' $args --save c=/tmp/c_tiled.npy > /dev/null
for tail in 1 2; do
  $tkc run $common --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 -D warp_specialize=3 \
    -D TAIL_SPLIT=$tail --grid 264 $args --save c=/tmp/c_p$tail.npy > /dev/null
done
$tkc run $common --kernel fp8_matmul -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1 \
  --grid 'cdiv(M,BM)*cdiv(N,BN)' $args --save c=/tmp/c_tiled2.npy > /dev/null
python3 - <<'PY' | tee $OUT/bits.txt
import numpy as np
t = np.load("/tmp/c_tiled.npy").view(np.uint16)
for name in ("c_tiled2", "c_p1", "c_p2"):
    o = np.load("/tmp/%s.npy" % name).view(np.uint16)
    print("fp8_matmul against %s: %d of %d bf16 outputs differ" % (name, (o != t).sum(), t.size))
PY
