#!/usr/bin/env bash
# Session 41, run 4. Run 1 measured the pipelined split kernels at batch 1, where the committed
# kernel's 2048 programs of one block each won. At batch 8 the graph asks for 16 splits
# (decodeSplitsFor: 8 x 32 heads x 16 >= 2048), so each program loops over 3 blocks of 64 rows
# at 2113 cached rows, and the cache (8.7 GB a step over 32 layers) outweighs the weights: the
# case the pipelined forms were made for. The FP8 batch-8 step (bench/llm_ab.py, one round):
# the committed kernel, session 40's tensor-core kernel and session 39's register-pipelined one
# (session 40's run 1), each at the graph's 16 splits.
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $out/machine.txt
L=/tmp/tkgpu/tk/bin/tk-llama
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1 && cp $2 /tmp/sl-$1/std/decode_attention.tk; }
mk mma bench/results/2026-12-07-session40/run1/decode_attention_mma.tk
mk pipe bench/results/2026-12-06-session39/run2/decode_attention_pipelined.tk
timeout 200 python3 bench/llm_ab.py 1 fp8b8 base=$L:stdlib mma=$L:/tmp/sl-mma pipe=$L:/tmp/sl-pipe 2>&1 \
  | grep -v "Writing model" > $out/ab-b8.txt
tail -2 $out/ab-b8.txt
