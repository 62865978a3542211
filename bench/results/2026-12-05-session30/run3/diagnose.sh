#!/usr/bin/env bash
# Session 30, run 3's follow-up (same warm machine): run.sh's `cmp` said the clustered outputs
# differ; their values, compared here, do not (max |difference| 0). ws 3's runs failed to
# compile at that shape: N = 300 makes ldc not a multiple of 16, so its stores cannot go by TMA
# and 6 stages with element-wise stores do not fit in shared memory (the compiler's message).
. bench/gpu-env.sh; src=bench/results/2026-12-05-session30/run3/fp8_matmul_group_n.tk; base="--kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D SCALE_MODE=1"; for v in "-D GROUP_N=1" "-D GROUP_N=1 -D cluster_size=2" "-D GROUP_N=2 -D cluster_size=2"; do t=$(echo $v | tr -d ' =-'); timeout 60 $tkc run $src $base -D warp_specialize=1 -D num_stages=5 $v --grid 8 $(fp8_args 520 300 576) --save c=$OUT/ws1$t.npy 2>&1 | tail -2; timeout 60 $tkc run $src $base -D warp_specialize=3 -D num_stages=6 $v --grid 16 $(fp8_args 520 300 576) --save c=$OUT/ws3$t.npy 2>&1 | tail -3; done; python3 -c "
import numpy as np,glob
fs=sorted(glob.glob('$OUT/*.npy'))
def f(p):
    a=np.load(p).view(np.uint16).astype(np.uint32)<<16; return a.view(np.float32)
ref=f(fs[0]) if fs else None
for p in fs:
    x=f(p); print(p.split('/')[-1], x.shape, 'nonzero', (x!=0).mean(), 'maxdiff vs', fs[0].split('/')[-1], np.abs(x-ref).max(), 'max', np.abs(ref).max())
"; rm -f $OUT/*.npy
