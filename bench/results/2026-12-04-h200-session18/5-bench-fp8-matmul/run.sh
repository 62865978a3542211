#!/usr/bin/env bash
# Session 18 run 5: `bench/run-all fp8` (3-stage TMA pipelines two iterations ahead, rereading
# broadcast loads, PROMOTE's row the faster of the two kernels; peers cuBLASLt's two modes and
# Triton's persistent TMA kernel with its own autotuning), then `bench/run-all matmul`.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for section in fp8 matmul; do
  OUT=$out/$section timeout 280 bench/run-all $section > /dev/null 2>&1
  grep "^$section\|Worst\|failed" $out/$section/log.txt | cut -c1-220
done
