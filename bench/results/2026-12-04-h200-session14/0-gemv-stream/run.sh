#!/usr/bin/env bash
# Session 13 run 1: fp8_gemv_row with the weights streamed into L2 ahead of the loads
# (STREAM_AHEAD: each k-step prefetches the one PREFETCH_STEPS ahead) and/or with the next
# k-step's weights loaded into registers before this one's products (DOUBLE_BUFFER).
# Variants are stdlib copies whose defaults differ (.pack/v-*), one binary.
root=$PWD; out=$OUT
mkdir -p /tmp/new && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
export PYTHONUNBUFFERED=1
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r; } | tee $out/machine.txt
bin=/tmp/new/tk/bin
argsrow() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2 \
      norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1; }
tune() { # name extra-args M N K
  local name=$1 extra=$2; shift 2
  echo "== fp8_gemv_row M=$1 N=$2 K=$3 [$name]"
  LD_LIBRARY_PATH=$bin TK_STDLIB_DIR=$root/.pack/v-off TK_CACHE_DIR=$(mktemp -d) timeout 60 $bin/tkc tune $root/.pack/v-off/std/fp8_matmul.tk --kernel fp8_gemv_row \
    --grid "cdiv(N,BN),M" --time 200 $(argsrow $@) $extra 2>&1 | grep -E "^ *BN|best|per call"
}
{
  for shape in "1 12288 4096" "1 4096 11008"; do
    tune off "" $shape
    tune sa "-D STREAM_AHEAD=true" $shape
    tune db "-D DOUBLE_BUFFER=true" $shape
    tune sadb "-D STREAM_AHEAD=true -D DOUBLE_BUFFER=true" $shape
  done
} 2>&1 | tee $out/tune.txt
timeout 330 python3 .pack/ab2.py 1 fp8b1 off=$bin/tk-llama:.pack/v-off sa=$bin/tk-llama:.pack/v-sa db=$bin/tk-llama:.pack/v-db sadb=$bin/tk-llama:.pack/v-sadb 2>&1 | grep -v "Writing model" | tee $out/ab.txt
