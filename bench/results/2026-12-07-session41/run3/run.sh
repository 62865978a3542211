#!/usr/bin/env bash
# Session 41, run 3. Run 2's table inside the CUDA graph puts the batch-1 FP8 step's GEMVs at
# 2.17 of its 2.68 ms: 6.48 GB of weights at 2.98 TB/s, 73% of the copy rate, where one GEMV
# alone back to back streams at over 90% of it. The tuner picks fp8_gemv_row's config from each
# GEMV timed alone; is that config also the step's best? The step (bench/llm_ab.py, one round,
# base again last for the drift) with the tuner's pick (base) and with each of four configs forced (force.py).
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $out/machine.txt
L=/tmp/tkgpu/tk/bin/tk-llama
here=bench/results/2026-12-07-session41/run3
vars=(base=$L:stdlib)
for c in "4 1024 4" "8 1024 4" "16 1024 4" "16 1024 8"; do
  set -- $c; n=bn$1_bk$2_w$3
  rm -rf /tmp/sl-$n && cp -r stdlib /tmp/sl-$n && python3 $here/force.py stdlib/std/fp8_matmul.tk /tmp/sl-$n/std/fp8_matmul.tk $1 $2 $3
  vars+=($n=$L:/tmp/sl-$n)
done
timeout 220 python3 bench/llm_ab.py 1 fp8b1 "${vars[@]}" base_again=$L:stdlib 2>&1 | grep -v "Writing model" > $out/ab-b1.txt
tail -2 $out/ab-b1.txt
