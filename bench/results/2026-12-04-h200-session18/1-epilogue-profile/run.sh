#!/usr/bin/env bash
# Session 18 run 1: where fp8_matmul_persistent's time between two tiles goes at 8192x8192x4096
# (per tensor, 128x256x128 in 3 stages, with and without a producer): Nsight Compute's full set
# and its per-SASS-instruction stall samples (--page source), one launch each.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
args="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192 scale_b=rand:f32:8192
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
cfg="-D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D SCALE_MODE=0"
for ws in 0 1; do
  TK_STDLIB_DIR=stdlib $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $cfg -D warp_specialize=$ws \
    --grid 132 $args --time 50 2>&1 | tail -1 | tee -a $out/time.txt
  TK_STDLIB_DIR=stdlib timeout 200 ncu --clock-control none --set full -k regex:fp8_matmul -c 1 -o $out/ws$ws \
    $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent $cfg -D warp_specialize=$ws --grid 132 $args > $out/ncu-ws$ws.log 2>&1
  ncu -i $out/ws$ws.ncu-rep --page source --print-source sass --csv > $out/sass-ws$ws.csv 2>&1
  ncu -i $out/ws$ws.ncu-rep --page details > $out/details-ws$ws.txt 2>&1
  xz -9 $out/sass-ws$ws.csv
done
ls -la $out
