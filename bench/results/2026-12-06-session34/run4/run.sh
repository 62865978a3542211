#!/usr/bin/env bash
# Session 34, run 4 (.pack/gemv_ring built here from `git show 2ef2b04:bench/results/2026-12-06-session34/run4/gemv_ring.cu` (run 8's file has every form) by
# `nvcc -O3 -arch=sm_90a -std=c++17 -o .pack/gemv_ring gemv_ring.cu`): run 3 with consumers that take whole rows a warp (the
# run 3 consumers were latency-bound at K=4096; gemv_ring.cu header
# says how). (run from the repository root with $OUT)
set -u
out=$OUT
{ date -u; git log -1 --format=%h; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
timeout 200 .pack/gemv_ring 2>&1 | tee $out/gemv_ring.txt
