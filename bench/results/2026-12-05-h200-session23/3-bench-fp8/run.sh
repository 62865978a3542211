#!/usr/bin/env bash
# Session 23 run 3: the whole `bench/run-all fp8` at 4aa2835 (run 1's stopped at its 200 s limit
# after 14 of 20 rows), with the GPU's SM clock and power sampled every 100 ms beside it
# (under Nsight Compute's fixed clocks, run 2, tk's kernel took 439 us against Triton's 456 at
# 8192x8192x4096, yet per call in run 1 they tied: are the clocks where it goes?).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 420 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
grep "^fp8\|Worst\|failed\|^==" $out/fp8/log.txt | cut -c1-260
