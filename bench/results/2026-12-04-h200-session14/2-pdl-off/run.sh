#!/usr/bin/env bash
# Session 14 run 2: LLaMA-7B decode with programmatic dependent launch (the default) against
# TK_DEPENDENT_LAUNCH=0 (every kernel a plain launch in the CUDA graph), one build (610ef00).
root=$PWD; out=$OUT
mkdir -p /tmp/new && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r; } | tee $out/machine.txt
bin=/tmp/new/tk/bin
export PYTHONUNBUFFERED=1
timeout 540 python3 .pack/ab3.py 2 fp8b1,fp8b8 pdl=$bin/tk-llama:.pack/v-off plain=$bin/tk-llama:.pack/v-off:TK_DEPENDENT_LAUNCH=0 2>&1 | grep -v "Writing model" | tee $out/ab.txt
