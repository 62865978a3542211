#!/usr/bin/env bash
# Session 37, run 3: rope with BT tokens a program (the commit before this script), and the
# GEMVs' L2 hint, on the numbers of record:
#  1. conformance on CUDA against the interpreter: -k rope, -k fp8_gemv (the hinted GEMVs);
#  2. bench/run-all --llm-without-peers llm llama: tk-llama's prefill and decode (bf16, FP8;
#     batch 1, 8), and the LLaMA-7B layer against torch's modes (peers timed in the same run).
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
for k in rope fp8_gemv; do
  timeout 45 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k $k > $out/conformance-$k.txt 2>&1
  grep "conformance cases" $out/conformance-$k.txt; grep -v "^ok" $out/conformance-$k.txt | grep -v "conformance cases" | head -5
done
OUT=$out/bench timeout 410 bench/run-all --llm-without-peers llm llama > $out/log.txt 2>&1
echo "run-all exit $?"
grep "llm:\|llama\|took" $out/log.txt | cut -c1-260 | head -40
rm -f $out/bench/log.txt
