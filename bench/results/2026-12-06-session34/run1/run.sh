#!/usr/bin/env bash
# Session 34, run 1 (pack of 2f0e650): what session 33 left untried on a GPU: the GPU unit
# tests (JitGpuTest.RestoreValueKeepsTimedRunsFromUpdatingInPlace among them) and
# tests/llm/tiny_llama.py on CUDA (kept logits in chunks, the step passed from the host); then
# `bench/run-all --llm-without-peers llm` for the decode numbers of record with greedy tokens
# chosen on the GPU. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 120 /tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='CudaBackend*:Jit*' > $out/gtest.txt 2>&1; echo "unit tests exit $?"
grep -E "FAILED|PASSED|Restore" $out/gtest.txt | head
TK_CACHE_DIR=$(mktemp -d) timeout 150 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda \
  --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; tail -3 $out/llm-tiny.txt | cut -c1-200
OUT=$out/llm timeout 300 bench/run-all --llm-without-peers llm > $out/log.txt 2>&1
grep "llm:\|took" $out/log.txt | cut -c1-240
rm -f $out/llm/log.txt
