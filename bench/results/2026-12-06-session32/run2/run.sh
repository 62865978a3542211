#!/usr/bin/env bash
# Session 32, run 2: `bench/run-all fp8` (tk autotuned against cuBLASLt, its fast accumulation and
# Triton, one run) with the SM clock and power every 100 ms, after the stdlib config on CUDA
# against the interpreter: session 28's run 6 script, unchanged. (The clustered configs were not
# added to the tuned space: run 1 had them 1-3% slower.) (run from the repository root with $OUT)
exec bash bench/results/2026-12-05-session28/run6/run.sh
