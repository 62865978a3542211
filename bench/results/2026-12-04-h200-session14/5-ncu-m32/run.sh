#!/usr/bin/env bash
# Session 14 run 5: Nsight Compute on tk's fp8_matmul and cuBLASLt at 32x4096x4096 per tensor.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$PWD/stdlib TKC_LIBRARY=$(ls /tmp/tkgpu/tk/bin/libtkc.so.*) PYTHONPATH=$PWD/runtime/python TK_CACHE_DIR=$(mktemp -d)
for cfg in "64 2" "32 1"; do
  timeout 120 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    python3 bench/results/2026-12-04-h200-session14/5-ncu-m32/m32.py $cfg > $out/ncu-$(echo $cfg | tr ' ' -).txt 2>&1
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Grid Size|Registers Per|Dynamic Shared|Achieved Occ|tk err|Stall|Waves" $out/ncu-$(echo $cfg | tr ' ' -).txt | head -80
done
