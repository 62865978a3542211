#!/usr/bin/env bash
# Session 43, run 1: session 42's prepared runs 9 and 10 in one call (pack of the session's
# first commit, carry .pack; repository root, $OUT):
#  - the whole conformance suite on CUDA against the interpreter after session 42's
#    tk-tma-stores change;
#  - `bench/run-all fp8` with the SM clock and power sampled every 100 ms.
set -u
. bench/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $OUT/machine.txt
timeout 200 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 > $OUT/conformance.txt 2>&1
grep -E "conformance cases passed" $OUT/conformance.txt; grep "^FAIL" $OUT/conformance.txt | head
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $OUT/clocks.csv &
sampler=$!
OUT=$OUT/fp8 timeout 360 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
rm -f $OUT/fp8/summary.md
grep "^fp8\|Worst\|failed\|took" $OUT/fp8/log.txt | cut -c1-220
