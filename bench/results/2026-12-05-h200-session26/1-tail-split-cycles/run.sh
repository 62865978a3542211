#!/usr/bin/env bash
# Session 26 run 1: (a) session 25's pending check (bench/pending/tail-split-fp8.sh, steps 1-2):
# the stdlib fp8_matmul_persistent's TAIL_SPLIT on CUDA against the interpreter, and TAIL_SPLIT 1
# against 2 at 2048x11008x4096; (b) where torch's CUTLASS rowwise kernel (per row/column peer) wins:
# Nsight Compute under its fixed clocks on it and on tk's 128x256 ws1 and 128x128 ws1/ws3 configs
# at 8192x8192x4096 and 2048x11008x4096 per row/column: cycles, L2 and tensor pipe, so that cycles
# (schedule) can be told from clocks (energy under the power cap).
set -u
out=$OUT
here=bench/results/2026-12-05-h200-session26/1-tail-split-cycles
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_matmul_persistent -v 2>&1 \
  > $out/conformance.txt; tail -3 $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
for t in 1 2 1 2; do
  echo "-- TAIL_SPLIT=$t"
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=5 -D num_warps=4 -D warp_specialize=1 -D SCALE_MODE=1 -D TAIL_SPLIT=$t --grid 132 --time 200 $(args 2048 11008 4096) 2>&1 | tail -1
done 2>&1 | tee $out/timing.txt
m="gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__cycles_active.avg,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,launch__cluster_dim_x,launch__grid_size,launch__block_size,launch__registers_per_thread"
for shape in "8192 8192 4096" "2048 11008 4096"; do
  set -- $shape
  echo "== ${1}x${2}x$3 torch._scaled_mm per row/column"
  timeout 100 ncu --metrics $m -k regex:"cutlass|gemm|sm90" python3 $here/cutlass_rowwise.py ${1}x${2}x$3 2>&1 | grep -E "^  [a-z]|   [a-z_]+__|launch__" | tail -13
  for cfg in "128 256 3 8 1 132" "128 128 5 4 1 132" "128 128 5 4 3 264"; do
    set -- $shape $cfg
    echo "== tk BM=$4 BN=$5 stages=$6 warps=$7 ws=$8 grid=$9"
    TK_CACHE_DIR=$(mktemp -d) timeout 100 ncu --metrics $m -k regex:fp8_matmul --launch-count 1 $tkc run stdlib/std/fp8_matmul.tk \
      --kernel fp8_matmul_persistent -D BM=$4 -D BN=$5 -D BK=128 -D num_stages=$6 -D num_warps=$7 -D warp_specialize=$8 \
      -D SCALE_MODE=1 --grid $9 $(args $1 $2 $3) 2>&1 | grep -E "   [a-z_]+__" 
  done
done 2>&1 | tee $out/ncu.txt
