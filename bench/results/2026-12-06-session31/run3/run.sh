#!/usr/bin/env bash
# Session 31, run 3: `bench/run-all fp8` (tk autotuned against cuBLASLt, its fast accumulation and
# Triton, one run) with the SM clock and power sampled every 100 ms, after the stdlib config on
# CUDA against the interpreter: session 28's run 6 script, unchanged.
# (run from the repository root with $OUT)
exec bash bench/results/2026-12-05-session28/run6/run.sh
