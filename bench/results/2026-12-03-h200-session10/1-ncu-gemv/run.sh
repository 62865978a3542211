#!/usr/bin/env bash
# Diagnosis: why GEMVs stream at 2-2.4 TB/s per call. Nsight Compute (caches flushed, then warm) with every stall reason,
# on fp8_gemv (loaded fragments, split 4) and fp8_gemv_row at 12288 x 4096, M=1.
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
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.avg"
G="DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|stalled|Active Warps|Eligible|Waves|inst_executed|cycles_elapsed|Executed Ipc"
for cc in all none; do
  echo "===== cache-control $cc"
  echo "== fp8_gemv BN=16 BK=128 SPLIT_K=4 w1"
  TK_CACHE_DIR=$(mktemp -d) timeout 100 ncu --cache-control $cc $S $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_gemv --grid "cdiv(N,BN),cdiv(M,BM),SPLIT_K" -D BM=8 -D BN=16 -D BK=128 -D SPLIT_K=4 -D num_warps=1 -D num_stages=1 $(args 1 12288 4096) 2>&1 | grep -E "$G" | grep -v " 0$" | head -60
  echo "== fp8_gemv_row BN=2 BK=2048 w4"
  TK_CACHE_DIR=$(mktemp -d) timeout 100 ncu --cache-control $cc $S $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_gemv_row --grid "cdiv(N,BN),M" -D BN=2 -D BK=2048 -D num_warps=4 $(argsrow 1 12288 4096) 2>&1 | grep -E "$G" | grep -v " 0$" | head -60
done 2>&1 | tee $out/ncu.txt
