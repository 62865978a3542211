#!/usr/bin/env bash
# Session 44, run 1 (pack of 641ffa8, tools/gpu-check; repository root, $OUT; carry .pack):
# session 43's prepared run 3. The GPU unit tests of the JIT and the graph layer (the graph's
# FP8 kernel choice among them), then tk-llama --fp8 at batch 1 on the LLaMA-7B-shaped random
# model, 2048-token prompt, 65 new tokens (bench/llm_ab.py, rounds interleaved): the prefill's
# FP8 matmuls on fp8_matmul alone (--fp8-kernel tiled, what ran before session 43) against the
# default (auto: the faster of fp8_matmul and fp8_matmul_persistent at each shape).
set -u
. bench/gpu-env.sh
start=$(date +%s)
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='JitGpu*:JitInterpreter*:Graph*' 2>&1 | tail -15 > $OUT/gtest.txt
grep -E "PASSED|FAILED" $OUT/gtest.txt; echo "unit tests took $(( $(date +%s) - start )) s"
L=/tmp/tkgpu/tk/bin/tk-llama
timeout $(( 560 - ($(date +%s) - start) )) python3 bench/llm_ab.py 2 fp8b1 "tiled=$L:stdlib:ARGS=--fp8-kernel tiled" "auto=$L:stdlib" \
  2>&1 | grep --line-buffered -v "Writing model" > $OUT/ab-b1.txt
tail -6 $OUT/ab-b1.txt
