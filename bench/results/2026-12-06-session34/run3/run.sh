#!/usr/bin/env bash
# Session 34, run 3 (.pack/gemv_ring built here from `git show bcf525b:bench/results/2026-12-06-session34/run3/gemv_ring.cu` (run 8's file has every form) by
# `nvcc -O3 -arch=sm_90a -std=c++17 -o .pack/gemv_ring gemv_ring.cu`): run 2's ceiling with the
# chain as one persistent kernel (mega) and chains of one shape, to tell a GEMV's own rate
# from its boundaries. (run from the repository root with $OUT)
set -u
out=$OUT
{ date -u; git log -1 --format=%h; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
timeout 200 .pack/gemv_ring 2>&1 | tee $out/gemv_ring.txt
