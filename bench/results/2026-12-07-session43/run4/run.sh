#!/usr/bin/env bash
# Session 43, run 4 (prepared; pack of this session's last code commit, tools/gpu-check;
# repository root, $OUT; carry .pack): run 2 again, for an H200: the FP8 GEMM's numbers of
# record are session 32's (H200), from before the tuner's final round and the interleaved
# choice between the tiled and the persistent kernel; this session measured H100s only.
set -u
. bench/gpu-env.sh
bench_with_clocks fp8 420
