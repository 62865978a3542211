#!/usr/bin/env bash
# Session 32, run 3: tk-llama's decode on the current code (its numbers of record are session
# 12's, 2.740 ms a step at batch 1 with --fp8, 68% of the floor): `bench/run-all
# --llm-without-peers llm` (LLaMA-7B-shaped random model, 2048-token prompt, 65 new tokens,
# bf16 and --fp8 at batch 1 and 8, each with its --profile table), after the FP8 GEMV cases on
# CUDA against the interpreter. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 90 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_gemv > $out/conformance.txt 2>&1
grep -E "conformance cases passed|^FAIL" $out/conformance.txt | head -4
OUT=$out/llm timeout 420 bench/run-all --llm-without-peers llm > $out/log.txt 2>&1
grep "llm:\|took" $out/log.txt | cut -c1-240
rm -f $out/llm/log.txt
