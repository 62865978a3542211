#!/usr/bin/env bash
# Session 21 run 2 (prepared; no GPU was lent in session 21): GraphOptions::gemvChains on the
# H200, correctness: the GEMV-chain conformance cases (a persistent kernel whose programs wait
# on each other through std/work_queue.tk) on CUDA against the interpreter, compute-sanitizer
# on one, 300 launches back to back against the interpreter, and tk-llama's tiny checkpoint on
# CUDA (--fp8 --gemv-chains: --fp8's tokens, logits within 1e-2). The timing is run 3
# (3-gemv-chains-decode). Pack: tools/gpu-check --bench. About 4 minutes; every step under a timeout,
# 575 s in all.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
TK_STDLIB_DIR=$PWD/stdlib timeout 90 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 8 \
  -k gemv_chain 2>&1 | tee $out/conformance.txt
# The end-to-end check first (the tiny checkpoint: --fp8 and --fp8 --gemv-chains on CUDA).
TK_STDLIB_DIR=$PWD/stdlib timeout 200 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tee $out/tiny-llama.txt
for tool in memcheck racecheck synccheck; do
  echo "-- $tool gemv_chain grid 264"
  TK_STDLIB_DIR=$PWD/stdlib timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/work_queue.tk \
    --kernel gemv_chain -D BN=8 -D BK=64 -D num_warps=4 -D PREFETCH_STEPS=1 --backend=cuda --grid 264 \
    queue=zeros:i32:128 a0=rand:bf16:96 b0=rand:f8e4m3:200x96 c0=zeros:bf16:200 scale_b0=rand:f32:200 residual0=rand:bf16:200 \
    norm_w0=rand:bf16:200 norm_out0=zeros:bf16:200 b1=rand:f8e4m3:136x200 c1=zeros:bf16:136 scale_b1=rand:f32:136 \
    b2=rand:f8e4m3:200x136 c2=zeros:bf16:200 scale_b2=rand:f32:200 N0=200 K0=96 N1=136 N2=200 2>&1 | tail -1
done 2>&1 | tee $out/sanitizer.txt
# Stress: 300 launches back to back (--time: every program racing for the queue, launch after
# launch) then the outputs and the queue against one interpreter run of the same inputs.
chain_args="queue=zeros:i32:128 a0=rand:bf16:96 b0=rand:f8e4m3:200x96 c0=zeros:bf16:200 scale_b0=rand:f32:200
  residual0=rand:bf16:200 norm_w0=rand:bf16:200 norm_out0=zeros:bf16:200 b1=rand:f8e4m3:136x200 c1=zeros:bf16:136
  scale_b1=rand:f32:136 b2=rand:f8e4m3:200x136 c2=zeros:bf16:200 scale_b2=rand:f32:200 N0=200 K0=96 N1=136 N2=200"
for backend in cuda interp; do
  extra=$([ $backend = cuda ] && echo "--time 300")
  TK_STDLIB_DIR=$PWD/stdlib timeout 60 $tkc run tests/conformance/kernels/work_queue.tk --kernel gemv_chain -D BN=8 -D BK=64 \
    -D num_warps=4 -D PREFETCH_STEPS=1 --backend=$backend --grid 264 $chain_args $extra \
    --save queue=/tmp/q_$backend.npy --save c0=/tmp/c0_$backend.npy --save c1=/tmp/c1_$backend.npy --save c2=/tmp/c2_$backend.npy
done 2>&1 | tee $out/stress.txt
python3 - <<'PY' 2>&1 | tee -a $out/stress.txt
import numpy as np
bf = lambda a: (a.astype(np.uint32) << 16).view(np.float32)
print("queue after 300 launches:", "zero" if not np.load("/tmp/q_cuda.npy").any() else np.load("/tmp/q_cuda.npy")[::32])
for name in ("c0", "c1", "c2"):
    g, i = bf(np.load("/tmp/%s_cuda.npy" % name)), bf(np.load("/tmp/%s_interp.npy" % name))
    print(name, "max |cuda - interp| / max |interp| = %.3g" % (np.abs(g - i).max() / np.abs(i).max()))
PY
