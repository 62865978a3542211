#!/usr/bin/env bash
# Session 46, run 1 (session 45's prepared run 5; pack of 8ee08c3 by tools/gpu-check; repository
# root, $OUT; carry .pack): bench/run-all fp8 over all twenty rows with the tuner's rounds
# rested (36518de), for the FP8 GEMM's numbers of record.
set -u
. bench/gpu-env.sh
bench_with_clocks fp8 540
