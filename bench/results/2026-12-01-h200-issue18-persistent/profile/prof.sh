#!/usr/bin/env bash
set -u
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
mkdir -p $OUT/prof
prof() { # name kernel grid defines... -- args
  local name=$1 kernel=$2 grid=$3; shift 3
  ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
      --launch-skip 3 --launch-count 1 -k regex:"^$kernel\$" $tkc run examples/matmul.tk --kernel $kernel --backend=cuda --grid "$grid" --time 5 "$@" \
      > $OUT/prof/$name.txt 2>&1
  echo "== $name"
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued|Threads  " $OUT/prof/$name.txt | sed 's/  */ /g' | head -24
}
M=4000 N=3000 K=1000
prof ragged_persistent_ws matmul_persistent "132" -D BM=128 -D BN=256 -D BK=64 -D num_warps=8 -D num_stages=4 -D warp_specialize=1 \
  a=rand:f16:${M}x$K b=rand:f16:${K}x$N c=zeros:f16:${M}x$N M=$M N=$N K=$K lda=$K ldb=$N ldc=$N
prof ragged_plain matmul "cdiv(M,128)*cdiv(N,256)" -D BM=128 -D BN=256 -D BK=64 -D num_warps=8 -D num_stages=4 \
  a=rand:f16:${M}x$K b=rand:f16:${K}x$N c=zeros:f16:${M}x$N M=$M N=$N K=$K lda=$K ldb=$N ldc=$N
M=4096 N=4096 K=4096
prof square_plain matmul "cdiv(M,128)*cdiv(N,256)" -D BM=128 -D BN=256 -D BK=64 -D num_warps=8 -D num_stages=4 \
  a=rand:f16:${M}x$K b=rand:f16:${K}x$N c=zeros:f16:${M}x$N M=$M N=$N K=$K lda=$K ldb=$N ldc=$N
M=32 N=4096 K=4096
prof m32_split matmul_split_k "cdiv(M,64)*cdiv(N,128),4" -D BM=64 -D BN=128 -D BK=128 -D SPLIT_K=4 -D num_warps=4 -D num_stages=4 \
  a=rand:f16:${M}x$K b=rand:f16:${K}x$N c=zeros:f16:${M}x$N workspace=zeros:f32:$((4*M*N)) counters=zeros:i32:64 M=$M N=$N K=$K lda=$K ldb=$N ldc=$N
