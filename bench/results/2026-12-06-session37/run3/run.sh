#!/usr/bin/env bash
# Session 37, run 3: rope with BT tokens a program (deb860a) and sigmoid's approximate reciprocal
# (the SwiGLU epilogues; the commit after it), with the GEMVs' L2 hint:
#  1. conformance on CUDA against the interpreter: rope, sigmoid, silu and the matmul epilogues;
#  2. prefill_profile.py: tk-llama's prefill (FP8, bf16, batch 1) and its --profile table (rope's
#     line against run 2's bench/llm/summary.md, the same model and prompt before the change);
#  3. bench/run-all llama: the LLaMA-7B layer against torch's modes, peers timed in the same run.
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 60 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k rope,sigmoid,silu,.act,epilogue > $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
timeout 150 python3 bench/results/2026-12-06-session37/run3/prefill_profile.py 2>&1 | grep -v "Writing model" | tee $out/prefill.txt
OUT=$out/bench timeout 200 bench/run-all llama > $out/log.txt 2>&1
echo "run-all exit $?"
grep "llm:\|llama\|took" $out/log.txt | cut -c1-260 | head -40
rm -f $out/bench/log.txt
