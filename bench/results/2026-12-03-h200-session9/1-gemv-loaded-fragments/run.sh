#!/usr/bin/env bash
# fp8_gemv on loaded fragments (mma.sync): CUDA conformance (gemv, FP8 matmuls, then the whole suite), every config on
# LLaMA-7B's shapes at M=1 and M=8, the SIMT kernel before it at M=1 in the same run.
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for f in fp8_gemv fp8_matmul; do
  TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 15 -k $f 2>&1 | tail -4
done 2>&1 | tee $out/conformance-gemv.txt
for shape in "12288 4096" "4096 4096" "11008 4096" "4096 11008"; do
  set -- $shape; N=$1; K=$2
  for M in 1 8; do
    echo "== fp8_gemv (loaded fragments) M=$M N=$N K=$K (weights $((N*K)) bytes)"
    TK_CACHE_DIR=$(mktemp -d) timeout 40 $tkc tune stdlib/std/fp8_matmul.tk --kernel fp8_gemv --grid "cdiv(N,BN),cdiv(M,BM),SPLIT_K" --time 200 \
      a=rand:bf16:$((M*K)) b=rand:f8e4m3:$((N*K)) c=zeros:bf16:$((M*N)) scale_b=rand:f32:$N bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:$((4*M*N)) counters=zeros:i32:$((N/16)) \
      M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N 2>&1 | tail -15
  done
  echo "== fp8_gemv before (SIMT, session 8) M=1 N=$N K=$K"
  TK_CACHE_DIR=$(mktemp -d) timeout 40 $tkc tune .pack/exp/fp8_simt.tk --kernel fp8_gemv --grid "cdiv(N,BN),cdiv(M,BM)" --time 200 \
    a=rand:bf16:$K b=rand:f8e4m3:$((N*K)) c=zeros:bf16:$N scale_b=rand:f32:$N bias=zeros:bf16:1 \
    residual=zeros:bf16:1 mul=zeros:bf16:1 M=1 N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N 2>&1 | tail -1
done 2>&1 | tee $out/tune.txt
TK_CACHE_DIR=$(mktemp -d) timeout 200 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 15 2>&1 | tail -6 | tee $out/conformance-all.txt
