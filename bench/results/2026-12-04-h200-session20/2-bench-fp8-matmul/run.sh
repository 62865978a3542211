#!/usr/bin/env bash
# Session 20 run 2: `bench/run-all fp8` then `bench/run-all matmul` at 6bbb80a (session 19's final code; the
# bench's PROMOTE rows as the faster of the two kernels, 9560cf7, first run on the GPU here;
# peers cuBLASLt's two modes and Triton's persistent TMA kernel with its own autotuning).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for section in fp8 matmul; do
  OUT=$out/$section timeout 280 bench/run-all $section > /dev/null 2>&1
  grep "^$section\|Worst\|failed" $out/$section/log.txt | cut -c1-220
done
