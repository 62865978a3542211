#!/usr/bin/env bash
# Session 49, run 2 (pack by tools/gpu-check --bench; repository root, $OUT; carry .pack): where
# tk's FP8 GEMM loses the time no SM is busy. Session 29's Nsight Compute reports (run 3) give
# nvjet 538.8k elapsed cycles at 8192x8192x4096 with its busiest SM active 533.6k (5.2k past
# it), tk's ws 3 561.2k against 542.4k (18.8k past it); sessions 23 and 27 read 11-14k past the
# busiest SM for tk's other configs and Triton's kernel, 3.3k for nvjet. That is 2-3% of the
# kernel. Whether it is a cost a launch (the same cycles at K = 1024) or a share of the work:
# bench/profile_fp8.py (one launch each under base clocks) at both K, the tuned ws 3 config and
# 128x256 with a producer, beside cuBLASLt's kernel; then the ws 3 config launched plainly
# (TK_DEPENDENT_LAUNCH=0: tk launches kernels that call gdc_wait as programmatic dependents, which
# nvjet is not), and per call by `tkc run --time 200` both ways.
set -u
. bench/gpu-env.sh
for k in 4096 1024; do
  timeout 280 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile-$k --shape 8192 8192 $k \
    --config "128 128 6 4 3 1 4" --config "128 256 4 8 1 1 8" 2>&1 | tee $OUT/profile-$k.md
done
TK_DEPENDENT_LAUNCH=0 timeout 150 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile-plain --config "128 128 6 4 3 1 4" \
  2>&1 | tee $OUT/profile-plain.md
for round in 1 2; do
  for plain in 1 0; do
    echo -n "TK_DEPENDENT_LAUNCH=$plain: "
    TK_DEPENDENT_LAUNCH=$plain fp8_persistent_time 8192 8192 4096 264 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 \
      -D warp_specialize=3 -D GROUP_M=4
  done
done 2>&1 | tee $OUT/plain-timing.txt
# Each SM's active cycles (metric instances: is the tail a few late SMs or all of them?), tk's
# ws 3 config and cuBLASLt's kernel at 8192x8192x4096 (the peer script profile_fp8.py wrote).
instances() { timeout 120 ncu --metrics sm__cycles_active.sum,gpc__cycles_elapsed.max --print-metric-instances values \
  -k "regex:$1" --launch-count 1 "${@:2}" 2>&1 | grep -E "sm__cycles_active|gpc__cycles_elapsed" || true; }
{ echo "tk ws 3:"; instances fp8_matmul env TK_CACHE_DIR= $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --grid 264 -D BM=128 -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D GROUP_M=4 \
    -D SCALE_MODE=1 $(fp8_args 8192 8192 4096)
  echo "cuBLASLt:"; instances "nvjet|gemm|sm90" python3 /tmp/profile-4096/peer.py; } 2>&1 | tee $OUT/sm-instances.txt
tar -cJf $OUT/details.tar.xz -C /tmp $(cd /tmp && ls -d profile-*/*details.txt 2>/dev/null)
