#!/usr/bin/env bash
# a8931ea's stdlib fp8_matmul_persistent with TAIL_SPLIT on CUDA: its conformance cases against
# the interpreter (every config of its space on 3 programs, _tail2 and _tail4 among them), then
# TAIL_SPLIT 1 and 2 on the 128x128 producer config at 2048x11008x4096 per row/column.
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_matmul_persistent -v 2>&1 \
  | tee $out/conformance.txt | tail -20
M=2048 N=11008 K=4096
args="a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N"
args="$args bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"
for t in 1 2 1 2; do
  echo "-- TAIL_SPLIT=$t"
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=5 -D num_warps=4 -D warp_specialize=1 -D SCALE_MODE=1 -D TAIL_SPLIT=$t --grid 132 --time 200 $args 2>&1 | tail -1
done 2>&1 | tee $out/timing.txt
