#!/usr/bin/env bash
# Session 39, run 2 (pack of 67aac3b or later, tools/gpu-check): decode_attention_split
# software-pipelined by hand (decode_attention_pipelined.tk here: the next block's K and V tiles
# loaded before this block's scores, two blocks in flight a program) against the stdlib's,
#  - alone at the step's shape (32 heads, 2113 cached rows) at 64/16/8 splits in BLOCK_N 32/64
#    x 4/8 warps (tkc run --time: per call with L2 flushed, and back to back);
#  - in tk-llama --fp8's batch-1 step at 64 and 16 splits (bench/llm_ab.py, two rounds);
#  - on CUDA against the interpreter (conformance -k decode_attention).
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
here=bench/results/2026-12-06-session39/run2
rm -rf /tmp/sl-pipe && cp -r stdlib /tmp/sl-pipe && cp $here/decode_attention_pipelined.tk /tmp/sl-pipe/std/decode_attention.tk
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 250 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib pipe=$L:/tmp/sl-pipe "pipe16=$L:/tmp/sl-pipe:ARGS=--decode-splits 16" \
  "base16=$L:stdlib:ARGS=--decode-splits 16" 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt | tail -12
python3 -c "import numpy as np; np.save('/tmp/lengths.npy', np.array([2113], np.int32))"
for lib in stdlib /tmp/sl-pipe; do for s in 64 16 8; do for bn in 32 64; do for w in 4 8; do
  timeout 20 $tkc run $lib/std/decode_attention.tk --kernel decode_attention_split --backend=cuda -D BLOCK_N=$bn -D num_warps=$w \
    --grid 32,$s --time 100 q=rand:bf16:1x4096 k_cache=rand:bf16:2113x4096 v_cache=rand:bf16:2113x4096 lengths=@/tmp/lengths.npy \
    partial_o=zeros:f32:$((32*s))x128 partial_ml=zeros:f32:$((32*s))x2 n_heads=32 n_kv_heads=32 max_context=2113 n_splits=$s \
    scale=0.0884 q_stride=4096 q_col=0 2>&1 | tail -1 | sed "s|^|$lib splits $s BN $bn w$w: |"
done; done; done; done | tee $out/split-alone.txt
cp -r stdlib /tmp/stdlib-orig && cp /tmp/sl-pipe/std/decode_attention.tk stdlib/std/decode_attention.tk
timeout 45 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k decode_attention > $out/conformance.txt 2>&1
rm -rf stdlib && cp -r /tmp/stdlib-orig stdlib
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
