#!/usr/bin/env bash
# Session 34, run 2 (pack of the commit in machine.txt; .pack/gemv_ring built here from `git show 3a3c4ba:bench/results/2026-12-06-session34/run2/gemv_ring.cu` (run 8's file has every form) by
# `nvcc -O3 -arch=sm_90a -std=c++17 -o .pack/gemv_ring gemv_ring.cu`): the session's two fixes
# on the GPU (greedy_advance compiled once for every step; the interpreter's streams on a GPU
# machine: the GPU unit test and tests/llm/tiny_llama.py --backend interp), then the
# hand-written ceiling of a kernel-per-GEMV step whose weights stream across kernel boundaries
# (gemv_ring.cu's header). (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 60 /tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='*Greedy*:*NoCudaContext*' > $out/gtest.txt 2>&1; echo "unit tests exit $?"
grep -E "OK \]|FAILED|PASSED" $out/gtest.txt | head
timeout 120 .pack/gemv_ring 2>&1 | tee $out/gemv_ring.txt
TK_CACHE_DIR=$(mktemp -d) timeout 240 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend interp \
  --skip-tokenizer > $out/llm-tiny-interp.txt 2>&1; echo "tiny llama (interp) exit $?"; tail -3 $out/llm-tiny-interp.txt | cut -c1-200
