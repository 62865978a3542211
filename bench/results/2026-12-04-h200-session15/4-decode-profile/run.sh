#!/usr/bin/env bash
# Session 15 run 4: where a batch-1 FP8 decode step's time goes (tk-llama --profile: each kernel
# timed alone between events), and the step itself (2 rounds, fp8 b1 and b8).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
PROFILE=1 timeout 560 python3 bench/llm_ab.py 2 fp8b1,fp8b8 cur=/tmp/tkgpu/tk/bin/tk-llama:stdlib 2>&1 | tee $out/ab.txt | tail -60
