#!/usr/bin/env bash
# Experiment: a plain tk read stream's bandwidth; fp8_gemv with b blocked [N/BN, K/BK, BN, BK] (contiguous tiles) against row-major.
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
args() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:$((16*$1*$2)) counters=zeros:i32:$(($2/16)) \
      M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2; }
X=.pack/exp/fp8_exp.tk
{
for n in 12582912 50331648; do
  echo "== read_sum n=$n i32"
  TK_CACHE_DIR=$(mktemp -d) timeout 60 $tkc tune $X --kernel read_sum --grid "cdiv(n,BLOCK)" --time 200 x=rand:i32:$n out=zeros:i32:$n n=$n 2>&1 | tail -12
  echo "== read_sum_loop n=$n i32"
  TK_CACHE_DIR=$(mktemp -d) timeout 60 $tkc tune $X --kernel read_sum_loop --grid "cdiv(n,BLOCK*ITERS)" --time 200 x=rand:i32:$n out=zeros:i32:$n n=$n 2>&1 | tail -15
done
for shape in "12288 4096" "22016 4096" "4096 11008"; do
  for v in "X=0" "TK_EXP_LD_QUALIFIERS=.L2::256B"; do
    for k in fp8_gemv fp8_gemv_blk; do
      echo "== $k M=1 N,K=$shape [$v]"
      env $v TK_CACHE_DIR=$(mktemp -d) timeout 60 $tkc tune $X --kernel $k --grid "cdiv(N,BN),cdiv(M,BM),SPLIT_K" --time 200 $(args 1 $shape) 2>&1 | tail -10
    done
  done
done
} 2>&1 | tee $out/tune.txt
