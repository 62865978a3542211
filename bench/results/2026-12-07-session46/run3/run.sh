#!/usr/bin/env bash
# Session 46, run 3 (prepared, not run: the session's device time was spent; pack by
# tools/gpu-check; repository root, $OUT; carry .pack): where clusters lose GROUP_M 4's gain
# (run 2: ws 3 s6 at 8192x8192x4096 per row and column 0.377 ms without clusters, 0.411 on
# clusters of 2, against 0.411 / 0.417 at GROUP_M 8). Nsight Compute (base clocks, one launch
# each) on 128x128 ws 3 in 6 stages at GROUP_M 4 with and without clusters, GROUP_M 8 without,
# beside cuBLASLt's clustered nvjet kernel: cycles, tensor pipe, what TMA received against what
# L2 read, stall samples by instruction (bench/profile_fp8.py; details and SASS in the tarball).
set -u
. bench/gpu-env.sh
timeout 480 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile --config "128 128 6 4 3 1 4" \
  --config "128 128 6 4 3 2 4" --config "128 128 6 4 3 1 8" 2>&1 | tee $OUT/profile.md
tar -cJf $OUT/details-sass.tar.xz -C /tmp/profile $(cd /tmp/profile && ls | grep -E "details|sass") 2>/dev/null
