#!/usr/bin/env bash
# Session 47, run 2 (pack of 5fd8ac7 by tools/gpu-check --bench; repository root, $OUT; carry
# .pack): bench/run-all fp8 over all twenty rows with WEIGHTS_ONCE in the few-row configs
# (run 1: 1.06-1.17x per call at M = 32), for the FP8 GEMM's numbers of record.
set -u
. bench/gpu-env.sh
bench_with_clocks fp8 540
