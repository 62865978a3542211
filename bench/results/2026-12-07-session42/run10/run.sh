#!/usr/bin/env bash
# Session 42, run 10 (prepared): `bench/run-all fp8` on an H200 with the session's code, the
# SM clock and power sampled every 100 ms: the FP8 GEMM's numbers of record are session 32's
# (H200); this session measured on H100s only. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $OUT/clocks.csv &
sampler=$!
OUT=$OUT/fp8 timeout 400 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
rm -f $OUT/fp8/summary.md
grep "^fp8\|Worst\|failed\|took" $OUT/fp8/log.txt | cut -c1-220
