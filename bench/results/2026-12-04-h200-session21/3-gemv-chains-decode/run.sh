#!/usr/bin/env bash
# Session 21 run 3 (prepared): the batch-1 FP8 decode step (LLaMA-7B-shaped random model,
# 2048-token prompt, 65 new tokens) without and with GEMV chains (tk-llama --gemv-chains),
# 3 rounds interleaved (bench/llm_ab.py: medians, tokens compared), each variant's --profile
# decode table first. Pack: tools/gpu-check --bench. About 6 minutes.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
x=/tmp/tkgpu/tk/bin/tk-llama
PROFILE=1 timeout 560 python3 bench/llm_ab.py 3 fp8b1 plain=$x:stdlib "chains=$x:stdlib:ARGS=--gemv-chains" 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt
