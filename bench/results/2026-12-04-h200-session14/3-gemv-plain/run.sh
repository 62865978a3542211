#!/usr/bin/env bash
# Session 14 run 3: LLaMA-7B FP8 decode, batch 1, with fp8_gemv_row as it is (prefetch, gdc_wait,
# launched as a programmatic dependent) against a stdlib copy whose fp8_gemv_row has neither
# (.pack/v-noov: a plain launch in the CUDA graph; the other kernels unchanged). Build 610ef00.
root=$PWD; out=$OUT
mkdir -p /tmp/new && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r; } | tee $out/machine.txt
bin=/tmp/new/tk/bin
export PYTHONUNBUFFERED=1
timeout 400 python3 .pack/ab3.py 2 fp8b1 pdl=$bin/tk-llama:.pack/v-off rowplain=$bin/tk-llama:.pack/v-noov 2>&1 | grep -v "Writing model" | tee $out/ab.txt
