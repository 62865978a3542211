#!/usr/bin/env bash
# Session 45, run 5 (prepared, not run: the session's device time was spent; pack of 5cbe765 or
# later: tools/gpu-check; repository root, $OUT; carry .pack): bench/run-all fp8 over all its
# rows with the tuner's rounds rested (36518de), for the FP8 GEMM's numbers of record; run 1
# had them unrested, run 4 only the 8192x8192x4096 rows.
set -u
. bench/gpu-env.sh
bench_with_clocks fp8 540
