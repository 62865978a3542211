#!/usr/bin/env bash
# Session 36, run 1: at batch 1, the tensor-core GEMV (fp8_gemv: weights converted to f16 two
# bytes an instruction, the products on mma.sync, no f16->f32 conversions) over a wider config
# space (.pack/v-gemv: the stdlib with fp8_gemv's @autotune list replaced, more warps and rows a
# program) against fp8_gemv_row (the CUDA cores) as the stdlib tunes it. Needs $tkc (gpu-env.sh).
# (run from the repository root with $OUT)
for shape in "12288 4096" "4096 11008"; do
  set -- $shape; N=$1; K=$2; M=1
  common="a=rand:bf16:$K b=rand:f8e4m3:$((N*K)) c=zeros:bf16:$N scale_b=rand:f32:$N bias=zeros:bf16:1
    residual=zeros:bf16:1 mul=zeros:bf16:1 M=1 N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"
  echo "== fp8_gemv M=1 N=$N K=$K (.pack/v-gemv configs)"
  TK_STDLIB_DIR=.pack/v-gemv TK_CACHE_DIR=$(mktemp -d) timeout 90 $tkc tune .pack/v-gemv/std/fp8_matmul.tk --kernel fp8_gemv \
    --grid "cdiv(N,BN),cdiv(M,BM),SPLIT_K" --time 200 $common workspace=zeros:f32:$((16*8*N)) counters=zeros:i32:$((N/16)) 2>&1 | tail -24
  echo "== fp8_gemv_row M=1 N=$N K=$K"
  TK_CACHE_DIR=$(mktemp -d) timeout 60 $tkc tune stdlib/std/fp8_matmul.tk --kernel fp8_gemv_row --grid "cdiv(N,BN),M" --time 200 \
    $common norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1 2>&1 | tail -11
done
