#!/usr/bin/env bash
# Session 14 run 4: the fp8 section at M=32 with seven more few-row fp8_matmul configs.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; git log -1 --format=%h 2>/dev/null || true; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
OUT=$out/bench timeout 560 bench/run-all --fp8-shapes 32x12288x4096,32x4096x4096,32x11008x4096,32x4096x11008 fp8 > /dev/null 2>&1
grep "^fp8\|Worst" $out/bench/log.txt
