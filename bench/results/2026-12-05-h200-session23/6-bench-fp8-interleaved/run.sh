#!/usr/bin/env bash
# Session 23 run 6: `bench/run-all fp8` with per call timed again with the contenders
# interleaved (76bf1aa: one run of each a round, the order rotated; the block medians kept as
# per_call_block_ms), the clocks sampled beside it as in run 3. Pack: tools/gpu-check --bench at
# the commit in machine.txt (its binaries those of run 3's 4aa2835: only bench/ changed).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 330 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
grep "^fp8\|Worst\|failed\|^==" $out/fp8/log.txt | cut -c1-260
