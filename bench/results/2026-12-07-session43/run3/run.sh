#!/usr/bin/env bash
# Session 43, run 3 (pack of the graph layer's FP8 kernel choice, tools/gpu-check;
# repository root, $OUT; carry .pack): tk-llama --fp8 at batch 1, LLaMA-7B-shaped random model,
# 2048-token prompt, 65 new tokens (bench/llm_ab.py, rounds interleaved): the prefill's FP8
# matmuls on fp8_matmul alone (--fp8-kernel tiled, what ran before) against the default (auto:
# the faster of fp8_matmul and fp8_matmul_persistent at each shape).
# First the GPU unit tests of the JIT and the graph layer (the interleaved timing's rotation).
set -u
. bench/gpu-env.sh
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='JitGpu*:JitInterpreter*:Graph*' 2>&1 | tail -15 > $OUT/gtest.txt
grep -E "PASSED|FAILED" $OUT/gtest.txt
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 330 python3 bench/llm_ab.py 2 fp8b1 "tiled=$L:stdlib:ARGS=--fp8-kernel tiled" "auto=$L:stdlib" \
  2>&1 | grep --line-buffered -v "Writing model" > $OUT/ab-b1.txt
tail -4 $OUT/ab-b1.txt
