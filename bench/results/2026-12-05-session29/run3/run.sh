#!/usr/bin/env bash
# Session 29, run 3: synccheck again on ws 3 with TAIL_SPLIT 2 after the programs' meeting
# became a barrier that is not `.aligned` (run 2: 160-416 "Divergent thread(s) in block" at the
# meeting's bar.sync), then where ws 3 on clusters of 2 loses: Nsight Compute (base clocks)
# on 128x128 ws 3 in 6 stages with and without clusters (GROUP_M 8, and 1: a cluster's two tiles
# on one row, as nvjet's 1x2) beside cuBLASLt's clustered nvjet at 8192x8192x4096 per
# row/column. (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
{
for shape in "330 264 800 6" "1024 1024 512 16"; do
  set -- $shape
  timeout 90 compute-sanitizer --tool synccheck $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D TAIL_SPLIT=2 \
    -D SCALE_MODE=1 --grid $4 $(fp8_args $1 $2 $3) 2>&1 | grep "ERROR SUMMARY" | sed "s/^/$1x$2x$3 grid $4: /"
done
} 2>&1 | tee $out/synccheck.txt
timeout 420 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile --config "128 128 6 4 3 1 8" --config "128 128 6 4 3 2 8" \
  --config "128 128 6 4 3 2 1" 2>&1 | tee $out/profile.md
tar -cJf $out/details-sass.tar.xz -C /tmp/profile $(cd /tmp/profile && ls | grep -E "details|sass") 2>/dev/null
ls $out
