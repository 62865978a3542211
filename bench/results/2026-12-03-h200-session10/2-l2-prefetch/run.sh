#!/usr/bin/env bash
# Experiment: L2 prefetch of the GEMVs' loads D iterations ahead (TK_PREFETCH_DISTANCE) and ld's .L2::256B prefetch size,
# fp8_gemv (loaded fragments) and fp8_gemv_row (CUDA cores), LLaMA-7B shapes, M=1 (and M=8 for fp8_gemv).
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
args() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:$((16*$1*$2)) counters=zeros:i32:$(($2/16)) \
      M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2; }
argsrow() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2; }
tune() { # variant-env kernel M N K
  local envs=$1 kernel=$2; shift 2
  if [ $kernel = fp8_gemv ]; then g="cdiv(N,BN),cdiv(M,BM),SPLIT_K"; a=$(args $@); else g="cdiv(N,BN),M"; a=$(argsrow $@); fi
  echo "== $kernel M=$1 N=$2 K=$3 [$envs]"
  env $envs TK_CACHE_DIR=$(mktemp -d) timeout 60 $tkc tune stdlib/std/fp8_matmul.tk --kernel $kernel --grid "$g" --time 200 $a 2>&1 | grep -E "best|per call"
}
for shape in "12288 4096" "4096 4096" "22016 4096" "4096 11008"; do
  for v in "X=0" "TK_PREFETCH_DISTANCE=2" "TK_PREFETCH_DISTANCE=4" "TK_PREFETCH_DISTANCE=8" "TK_EXP_LD_QUALIFIERS=.L2::256B" "TK_EXP_LD_QUALIFIERS=.L2::256B TK_PREFETCH_DISTANCE=4"; do
    tune "$v" fp8_gemv 1 $shape
    tune "$v" fp8_gemv_row 1 $shape
  done
  for v in "X=0" "TK_PREFETCH_DISTANCE=4"; do tune "$v" fp8_gemv 8 $shape; done
done 2>&1 | tee $out/tune.txt
