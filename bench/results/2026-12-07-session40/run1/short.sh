#!/usr/bin/env bash
# run.sh's first two parts in their shortest form, for a device budget of a few minutes: the
# step A/B of the committed stdlib against the tensor-core split kernel at 8 and 16 splits (two
# rounds interleaved), then that kernel on CUDA against the interpreter.
set -u
out=$OUT
. bench/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $out/machine.txt
L=/tmp/tkgpu/tk/bin/tk-llama
rm -rf /tmp/sl-mma && cp -r stdlib /tmp/sl-mma && cp bench/results/2026-12-07-session40/run1/decode_attention_mma.tk /tmp/sl-mma/std/decode_attention.tk
timeout 170 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib "mma8=$L:/tmp/sl-mma:ARGS=--decode-splits 8" \
  "mma16=$L:/tmp/sl-mma:ARGS=--decode-splits 16" 2>&1 | grep -v "Writing model" > $out/ab-b1.txt
tail -3 $out/ab-b1.txt
cp -r stdlib /tmp/stdlib-orig && cp /tmp/sl-mma/std/decode_attention.tk stdlib/std/decode_attention.tk
timeout 40 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k decode_attention > $out/conformance-mma.txt 2>&1
rm -rf stdlib && cp -r /tmp/stdlib-orig stdlib
grep "conformance cases" $out/conformance-mma.txt
