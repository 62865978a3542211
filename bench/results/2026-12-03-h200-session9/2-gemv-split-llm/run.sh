#!/usr/bin/env bash
# fp8_gemv on loaded fragments: split-K configs on LLaMA-7B's shapes, then LLaMA-7B (tk only) and the tiny LLaMA on CUDA.
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 15 -k fp8_gemv 2>&1 | tail -3 | tee $out/conformance-gemv.txt
args() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:$((16*$1*$2)) counters=zeros:i32:$(($2/16)) \
      M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2; }
for shape in "12288 4096" "4096 4096" "11008 4096" "4096 11008"; do
  set -- $shape; N=$1; K=$2
  echo "== fp8_gemv (loaded fragments) M=1 N=$N K=$K (weights $((N*K)) bytes)"
  TK_CACHE_DIR=$(mktemp -d) timeout 40 $tkc tune stdlib/std/fp8_matmul.tk --kernel fp8_gemv --grid "cdiv(N,BN),cdiv(M,BM),SPLIT_K" --time 200 $(args 1 $N $K) 2>&1 | tail -16
done 2>&1 | tee $out/tune.txt
echo "== fp8_gemv (loaded fragments) M=8 N=12288 K=4096" | tee -a $out/tune.txt
TK_CACHE_DIR=$(mktemp -d) timeout 40 $tkc tune stdlib/std/fp8_matmul.tk --kernel fp8_gemv --grid "cdiv(N,BN),cdiv(M,BM),SPLIT_K" --time 200 $(args 8 12288 4096) 2>&1 | tail -3 | tee -a $out/tune.txt
TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -12 > $out/llm-tiny.txt
OUT=$out/bench timeout 330 bench/run-all --llm-without-peers llm > $out/log.txt 2>&1; grep "llm:" $out/log.txt | head -14
rm -f $out/bench/log.txt
