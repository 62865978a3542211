#!/usr/bin/env bash
# Session 30, run 4 (run 2 again, with the stdlib of 01f46bf, on whichever GPU comes): `bench/run-all fp8` (tk autotuned against cuBLASLt, its fast accumulation and
# Triton, one run) with the SM clock and power sampled every 100 ms, after the stdlib config on
# CUDA against the interpreter. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 120 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_matmul_persistent.tma > $out/conformance.txt 2>&1
tail -3 $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head -5
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 400 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
rm -f $out/fp8/summary.md # (8 files come back at most: summary.json renders it)
grep "^fp8\|Worst\|failed\|took" $out/fp8/log.txt | cut -c1-220
