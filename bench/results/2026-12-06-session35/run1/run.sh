#!/usr/bin/env bash
# Session 35, run 1 (pack of b99dd6f; .pack/gemv_ring8 and gemv_ring16 from session 34's run 8,
# `nvcc -O3 -arch=sm_90a -std=c++17 -DCONSUMER_WARPS=W` of its gemv_ring.cu): session 34's
# prepared run 8 (the persistent GEMV chain with 8 and 16 consumer warps, and fed by a queue),
# then `bench/run-all fp8` with the SM clock and power sampled (session 28's run 6 script).
# (run from the repository root with $OUT)
set -u
out=$OUT
mkdir -p $out/ring $out/gemm
OUT=$out/ring bash bench/results/2026-12-06-session34/run8/run.sh
OUT=$out/gemm bash bench/results/2026-12-05-session28/run6/run.sh
