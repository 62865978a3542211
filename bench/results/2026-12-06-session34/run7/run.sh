#!/usr/bin/env bash
# Session 34, run 7 (pack of the commit in machine.txt; .pack/gemv_ring built here from
# `git show 64df4f4:bench/results/2026-12-06-session34/run7/gemv_ring.cu` (run 8's file has every form) by `nvcc -O3 -arch=sm_90a -std=c++17 -o .pack/gemv_ring gemv_ring.cu`):
# the persistent GEMV chain without the wait between GEMVs (what the dependency costs), then
# tk-llama on the committed code in a fresh kernel cache, one round of bf16 and --fp8 batch 1
# (the first in the fresh cache: greedy_advance no longer compiles inside the timed steps).
# (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 100 .pack/gemv_ring 2>&1 | grep -v "pdl-l2\|ring" | tee $out/gemv_ring.txt
tkl=/tmp/tkgpu/tk/bin/tk-llama
TK_CACHE_DIR=$(mktemp -d) timeout 200 python3 bench/llm_ab.py 1 bf16b1,fp8b1 now=$tkl:stdlib 2>&1 | grep -v "Writing model" | tee $out/ab.txt
