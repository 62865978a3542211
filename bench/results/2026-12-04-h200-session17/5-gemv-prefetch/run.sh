#!/usr/bin/env bash
# Session 17 run 5: the batch-1 FP8 decode step (LLaMA-7B-shaped, 2048-token prompt) with the
# GEMVs prefetching more of their weights into L2 before they wait for the kernel ahead:
# PREFETCH_STEPS 1 (the stdlib's), 2 and 4 k-steps of 1024 (4: all of K = 4096), interleaved.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for n in 2 4; do
  cp -r stdlib /tmp/stdlib_p$n
  sed -i "s/const PREFETCH_STEPS: i32 = 1/const PREFETCH_STEPS: i32 = $n/" /tmp/stdlib_p$n/std/fp8_matmul.tk
done
x=/tmp/tkgpu/tk/bin/tk-llama
timeout 560 python3 bench/llm_ab.py 2 fp8b1 p1=$x:stdlib p2=$x:/tmp/stdlib_p2 p4=$x:/tmp/stdlib_p4 2>&1 | grep -v "Writing model" | tee $out/ab.txt
