#!/usr/bin/env bash
# Session 33, run 5 (pack of 930b713: a space of one config is chosen untimed; greedy_advance
# has no @autotune): the GPU unit tests (JitGpuTest.OneConfigIsNotTimed among them), run 3's
# tiny-LLaMA paths each with a cache of its own, and tests/llm/tiny_llama.py on CUDA.
# (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='CudaBackend*:Jit*' 2>&1 | tail -6 | tee $out/gtest.txt
timeout 150 python3 bench/results/2026-12-06-session33/run3/tiny_paths.py /tmp/tkgpu/tk/bin/tk-llama 2>&1 | tee $out/tiny-paths.txt
TK_CACHE_DIR=$(mktemp -d) timeout 300 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda \
  --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; cut -c1-200 $out/llm-tiny.txt
