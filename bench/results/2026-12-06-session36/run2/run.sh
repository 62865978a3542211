#!/usr/bin/env bash
# Session 36, run 2: chained batch-1 GEMVs (GraphOptions::chainedGemvRows: a GEMV reads the one
# before it as that one's programs store their columns, not after its end). tk-llama --fp8 batch 1
# decode A/B, rounds interleaved, one build: chained (the default) against --unchained-gemvs
# (each GEMV waits for the one before to end, as before); then fp8_gemv_row's conformance cases
# (the chained ones included) on CUDA against the interpreter.
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 200 python3 bench/llm_ab.py 2 fp8b1 chained=/tmp/tkgpu/tk/bin/tk-llama:stdlib \
  unchained=/tmp/tkgpu/tk/bin/tk-llama:stdlib:ARGS=--unchained-gemvs 2>&1 | grep -v "Writing model" | tee $out/ab.txt
timeout 40 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 8 -k fp8_gemv_row.chain > $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
