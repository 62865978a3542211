#!/usr/bin/env bash
# Session 23 run 2: where tk's persistent FP8 GEMM loses to Triton's at 8192x8192x4096 per tensor
# (session 20: 0.95x per call): Nsight Compute (--set full) on one launch of each, tk's two best
# configs (128x256 BK128, 3 stages with a producer warpgroup; 4 stages without), Triton's own
# autotuned choice, with Triton's PTX and TTGIR saved beside tk's (made here, ptx/). Then session
# 21's hand-written persistent GEMV-chain ceiling (carry .pack/gemv_chain_persistent).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
here=bench/results/2026-12-05-h200-session23/2-ncu-fp8-vs-triton
keys="Duration|Registers Per|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Bank Conflicts|Stall|Issue Slots Busy|Executed Ipc A|Dynamic Shared|L2 Hit|Tensor|Eligible|Active Warps|No Eligible|Warp Cycles Per Issued"
timeout 200 ncu --set full --import-source no --profile-from-start off -k regex:fp8_matmul --print-details all \
  python3 $here/triton_fp8_profile.py 8192x8192x4096 $out > $out/triton-ncu.txt 2>&1
grep -E "max \||best config|registers|per call" $out/triton-ncu.txt
grep -E "$keys" $out/triton-ncu.txt | head -60
args="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:1 scale_b=rand:f32:1
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
for cfg in "num_stages=3 -D warp_specialize=1" "num_stages=4"; do
  name=$(echo "$cfg" | tr -d ' =-' )
  echo "== tk 128x256 BK128 $cfg"
  TK_STDLIB_DIR=$PWD/stdlib timeout 40 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=256 \
    -D BK=128 -D num_warps=8 -D $cfg -D SCALE_MODE=0 --grid 132 $args --time 50 2>&1 | tail -1
  TK_STDLIB_DIR=$PWD/stdlib timeout 90 ncu --set full --import-source no -k regex:fp8_matmul --launch-count 1 --print-details all \
    $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D $cfg \
    -D SCALE_MODE=0 --grid 132 $args > $out/tk-$name-ncu.txt 2>&1
  grep -E "$keys" $out/tk-$name-ncu.txt | head -60
done
echo "== session 21's persistent GEMV-chain ceiling"
timeout 150 .pack/gemv_chain_persistent 2>&1 | tee $out/chain.txt | tail -40
