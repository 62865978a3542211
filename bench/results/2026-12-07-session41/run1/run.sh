#!/usr/bin/env bash
# Session 40, run 1 (pack of c9e6d5d or later, tools/gpu-check): decode attention, the batch-1
# FP8 step's largest loss (session 38: 0.43 ms of 2.72 on the H200, its 1.09 GB of cache at about
# 2.5 TB/s), two ways to keep a program's next blocks in flight:
#  - pipe: session 39's split kernel pipelined in registers (../../2026-12-06-session39/run2/);
#  - mma: the query padded to 16 rows so that scores and output are tensor-core dots, whose K
#    and V tiles the pipeliner stages in shared memory with cp.async (decode_attention_mma.tk);
#    with few splits, so that a program loops over several blocks (at 64 splits each has one).
# In order, each written to $OUT as it comes: the step A/B (bench/llm_ab.py, two rounds
# interleaved; tk-llama --fp8 batch 1, LLaMA-7B-shaped, 2048-token prompt); both variants on CUDA
# against the interpreter; session 38's code never run on a GPU: the GPU unit tests
# (JitGpuGraphTest.ProfileInGraphTimesTheRunWithoutEachKernel); then the split kernel alone at
# the step's shape (tkc run --time: per call with L2 flushed, and back to back).
# Cut to fit a short device budget.
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $out/machine.txt
L=/tmp/tkgpu/tk/bin/tk-llama
here=bench/results/2026-12-07-session40/run1
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1 && cp $2 /tmp/sl-$1/std/decode_attention.tk; }
mk pipe bench/results/2026-12-06-session39/run2/decode_attention_pipelined.tk
mk mma $here/decode_attention_mma.tk
timeout 230 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib "pipe16=$L:/tmp/sl-pipe:ARGS=--decode-splits 16" \
  "mma8=$L:/tmp/sl-mma:ARGS=--decode-splits 8" "mma16=$L:/tmp/sl-mma:ARGS=--decode-splits 16" \
  2>&1 | grep -v "Writing model" > $out/ab-b1.txt
tail -3 $out/ab-b1.txt
cp -r stdlib /tmp/stdlib-orig
for v in pipe mma; do
  cp /tmp/sl-$v/std/decode_attention.tk stdlib/std/decode_attention.tk
  timeout 40 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k decode_attention > $out/conformance-$v.txt 2>&1
  echo "$v: $(grep 'conformance cases' $out/conformance-$v.txt)"
done
rm -rf stdlib && cp -r /tmp/stdlib-orig stdlib
timeout 60 /tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='CudaBackend*:Jit*' > $out/gtest.txt 2>&1; echo "unit tests exit $?"
grep -E "FAILED|PASSED|InGraph" $out/gtest.txt | head
python3 -c "import numpy as np; np.save('/tmp/lengths.npy', np.array([2113], np.int32))"
alone() { # lib splits defines...
  local lib=$1 s=$2; shift 2
  timeout 20 $tkc run $lib/std/decode_attention.tk --kernel decode_attention_split --backend=cuda "$@" \
    --grid 32,$s --time 100 q=rand:bf16:1x4096 k_cache=rand:bf16:2113x4096 v_cache=rand:bf16:2113x4096 lengths=@/tmp/lengths.npy \
    partial_o=zeros:f32:$((32*s))x128 partial_ml=zeros:f32:$((32*s))x2 n_heads=32 n_kv_heads=32 max_context=2113 n_splits=$s \
    scale=0.0884 q_stride=4096 q_col=0 2>&1 | tail -1 | sed "s|^|${lib#/tmp/} splits $s $*: |"
}
{ alone stdlib 64 -D BLOCK_N=64 -D num_warps=4
  alone /tmp/sl-pipe 16 -D BLOCK_N=64 -D num_warps=4
  for s in 8 16; do for c in "16 64 4 3" "16 64 4 4" "16 32 4 4"; do set -- $c
    alone /tmp/sl-mma $s -D BLOCK_M=$1 -D BLOCK_N=$2 -D num_warps=$3 -D num_stages=$4; done; done
} > $out/split-alone.txt
cat $out/split-alone.txt
