#!/usr/bin/env bash
# Session 37, run 4: the review's form of the L2 hint (one policy an op, hoisted) on the GPU:
# fp8_gemv_row's and the cache-hint cases on CUDA against the interpreter, and fp8_gemv_row
# alone as in run 1 (BN 8, BK 1024, 4 warps; per call and back to back).
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 40 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_gemv_row,cache,rope > $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
gemv_time() { # N K
  timeout 20 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_gemv_row --backend=cuda -D BN=8 -D BK=1024 -D num_warps=4 \
    --grid $(( $1 / 8 )),1 --time 100 a=rand:bf16:1x$2 b=rand:f8e4m3:$1x$2 c=zeros:bf16:1x$1 scale_b=rand:f32:$1 \
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=1 N=$1 K=$2 lda=$2 ldb=$2 ldc=$1 ldr=$1 ldm=$1 \
    norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1 2>&1 | tail -1 | sed "s|^|1x$1x$2: |"
}
for r in 1 2; do gemv_time 12288 4096; gemv_time 4096 11008; done | tee $out/gemv.txt
