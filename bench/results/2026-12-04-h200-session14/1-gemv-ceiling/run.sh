#!/usr/bin/env bash
# Session 14 run 1: what a batch-1 FP8 GEMV can reach on this GPU (gemv_ref.cu, built with
# nvcc -arch=sm_90a -O3 here, .pack/gemv_ref), tk's fp8_gemv_row with HEAD's stdlib (v-off)
# against the loop that loads the activations before the weights (v-reorder), the SASS of both
# loops, and Nsight Compute's stall reasons for tk's kernel.
root=$PWD; out=$OUT
mkdir -p /tmp/new && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r; } | tee $out/machine.txt
bin=/tmp/new/tk/bin
timeout 150 .pack/gemv_ref 2>&1 | tee $out/ref.txt
argsrow() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2 \
      norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1; }
{
  for shape in "1 12288 4096" "1 4096 11008" "1 11008 4096"; do
    for v in off reorder; do
      echo "== fp8_gemv_row M,N,K=$shape [$v]"
      LD_LIBRARY_PATH=$bin TK_STDLIB_DIR=$root/.pack/v-$v TK_CACHE_DIR=$(mktemp -d) timeout 60 $bin/tkc tune $root/.pack/v-$v/std/fp8_matmul.tk --kernel fp8_gemv_row \
        --grid "cdiv(N,BN),M" --time 200 $(argsrow $shape) 2>&1 | grep -E "^ *BN|best|per call"
    done
  done
} 2>&1 | tee $out/tune.txt
for v in base reorder; do cuobjdump -sass .pack/sass/row-$v.cubin > $out/sass-$v.txt 2>&1; done
cuobjdump -sass -fun '_Z4gemvILi2ELi1ELi4EEvPK13__nv_bfloat16PKhPS0_ii' .pack/gemv_ref > $out/sass-ref-rows2-unroll1.txt 2>&1
for v in off reorder; do
  LD_LIBRARY_PATH=$bin TK_STDLIB_DIR=$root/.pack/v-$v TK_CACHE_DIR=$(mktemp -d) timeout 90 ncu --clock-control none -k regex:fp8_gemv_row -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
    $bin/tkc run $root/.pack/v-$v/std/fp8_matmul.tk --kernel fp8_gemv_row --grid "cdiv(N,BN),M" -D BN=8 -D BK=512 -D num_warps=4 $(argsrow 1 12288 4096) > $out/ncu-$v.txt 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Stall|Issued|Eligible|Achieved Occupancy|Registers" $out/ncu-$v.txt | head -30
done
