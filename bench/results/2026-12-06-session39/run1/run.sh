#!/usr/bin/env bash
# Session 39, run 1 (pack of 67aac3b or later, tools/gpu-check): session 38's run 3 with more split
# counts and run 2's software-pipelined split kernel, then what session 38 built and never ran
# on a GPU.
#  - the step's time (tk-llama --fp8 batch 1, LLaMA-7B-shaped, 2048-token prompt;
#    bench/llm_ab.py, two rounds interleaved) at 64 splits (chosen) and 16, and with
#    decode_attention_split software-pipelined by hand (../run2/decode_attention_pipelined.tk:
#    the next block's K and V tiles loaded before this block's scores) at 64, 16 and 8; the
#    pipelined kernel on CUDA against the interpreter;
#  - the decode step's --profile tables, the one inside its CUDA graph among them;
#  - decode_attention_split alone at the step's shape (32 heads, 2113 rows), both versions, 64
#    and 16 splits, BLOCK_N 32 and 64, 4 warps (tkc run --time: per call with L2 flushed, and
#    back to back);
#  - the GPU unit tests (JitGpuGraphTest.ProfileInGraphTimesTheRunWithoutEachKernel among them)
#    and tests/llm/tiny_llama.py on CUDA (its in-graph table check).
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
L=/tmp/tkgpu/tk/bin/tk-llama
rm -rf /tmp/sl-pipe && cp -r stdlib /tmp/sl-pipe
cp bench/results/2026-12-06-session39/run2/decode_attention_pipelined.tk /tmp/sl-pipe/std/decode_attention.tk
timeout 260 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib "splits16=$L:stdlib:ARGS=--decode-splits 16" pipe=$L:/tmp/sl-pipe \
  "pipe16=$L:/tmp/sl-pipe:ARGS=--decode-splits 16" "pipe8=$L:/tmp/sl-pipe:ARGS=--decode-splits 8" \
  2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt | tail -12
cp -r stdlib /tmp/stdlib-orig && cp /tmp/sl-pipe/std/decode_attention.tk stdlib/std/decode_attention.tk
timeout 40 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k decode_attention > $out/conformance-pipe.txt 2>&1
rm -rf stdlib && cp -r /tmp/stdlib-orig stdlib
grep "conformance cases" $out/conformance-pipe.txt
PROFILE=1 timeout 45 python3 bench/llm_ab.py 1 "" base=$L:stdlib 2>&1 | grep -v "Writing model" > $out/profile-b1.txt
grep -A40 "in its CUDA graph" $out/profile-b1.txt | head -40
timeout 60 /tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='CudaBackend*:Jit*' > $out/gtest.txt 2>&1; echo "unit tests exit $?"
grep -E "FAILED|PASSED|InGraph" $out/gtest.txt | head
TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/llm/tiny_llama.py --tk-llama $L --backend cuda \
  --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; tail -4 $out/llm-tiny.txt | cut -c1-200
python3 -c "import numpy as np; np.save('/tmp/lengths.npy', np.array([2113], np.int32))"
for lib in stdlib /tmp/sl-pipe; do for s in 64 16; do for bn in 32 64; do
  timeout 20 $tkc run $lib/std/decode_attention.tk --kernel decode_attention_split --backend=cuda -D BLOCK_N=$bn -D num_warps=4 \
    --grid 32,$s --time 100 q=rand:bf16:1x4096 k_cache=rand:bf16:2113x4096 v_cache=rand:bf16:2113x4096 lengths=@/tmp/lengths.npy \
    partial_o=zeros:f32:$((32*s))x128 partial_ml=zeros:f32:$((32*s))x2 n_heads=32 n_kv_heads=32 max_context=2113 n_splits=$s \
    scale=0.0884 q_stride=4096 q_col=0 2>&1 | tail -1 | sed "s|^|$lib splits $s BN $bn: |"
done; done; done | tee $out/split-alone.txt
