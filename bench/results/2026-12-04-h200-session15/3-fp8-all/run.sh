#!/usr/bin/env bash
# Session 15 run 3: the whole fp8 section (4096^3, 8192x8192x4096, the LLaMA-7B GEMMs at M=32
# and 2048) with fp8_matmul's SWAP_AB configs, for the README's FP8 table.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
OUT=$out/bench timeout 580 bench/run-all fp8 > /dev/null 2>&1
grep "^fp8\|Worst" $out/bench/log.txt
