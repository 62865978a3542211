#!/usr/bin/env bash
# Session 32, run 4: does fp8_gemv_row (batch-1 decode's GEMVs) gain from sending more of its
# weights to L2 before it waits on the kernel ahead (programmatic dependent launch)?
# PREFETCH_STEPS' default (1 k-step of BK) against 64 (the whole row block): a stdlib copy
# .pack/stdlib-pf64, that default alone changed; tk-llama --fp8 batch 1,
# LLaMA-7B-shaped, 2048-token prompt, 65 new tokens, rounds interleaved (bench/llm_ab.py).
# (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 280 python3 bench/llm_ab.py 2 fp8b1 base=/tmp/tkgpu/tk/bin/tk-llama:stdlib pf64=/tmp/tkgpu/tk/bin/tk-llama:.pack/stdlib-pf64 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt
