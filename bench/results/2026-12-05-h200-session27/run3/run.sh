#!/usr/bin/env bash
# Session 27, run 3: the tile order on clusters. Run 2's Nsight Compute showed that L2 reads
# fall short of the 4.29 GB the SMs receive because H100's L2 request coalescer merges the same
# lines asked for by CTAs at about the same time (lts tex reads 81M sectors for 128x128 ws 1
# against 134M delivered), and that clusters of 2 lose that (96M) while cuBLASLt's clustered
# kernel reaches 64M. GROUP_M decides which operand the cluster's two tiles share (8: B; 1:
# A) and which tiles run together: timed here with and without clusters, ws 1 and ws 3, at
# 8192x8192x4096 and 2048x11008x4096 per row/column, then the L2 reads of three of them.
# (pack eda5bbd; run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
run() { # M N K BM BN stages warps ws cluster GROUP_M
  progs=$(( $8 == 3 ? 264 : 132 ))
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 \
    -D num_stages=$6 -D num_warps=$7 -D warp_specialize=$8 -D cluster_size=$9 -D GROUP_M=${10} -D SCALE_MODE=1 \
    --grid $progs --time 100 $(args $1 $2 $3) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 $4x$5 s$6 ws$8 cl$9 G${10}/"
}
for shape in "8192 8192 4096" "2048 11008 4096"; do
  for cfg in "128 128 5 4 1" "128 128 5 4 3" "128 256 3 8 1"; do
    run $shape $cfg 1 8
    for g in 1 2 4 8 16; do run $shape $cfg 2 $g; done
  done
done 2>&1 | tee $out/timing.txt
for v in "1 1 8" "1 2 8" "1 2 1" "1 2 2"; do
  set -- $v
  echo "-- 8192 128x128 ws$1 cl$2 G$3"
  TK_CACHE_DIR=$(mktemp -d) timeout 60 ncu --metrics lts__t_sectors_srcunit_tex_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,sm__cycles_elapsed.max \
    -k regex:fp8_matmul --launch-count 1 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=5 -D num_warps=4 -D warp_specialize=$1 -D cluster_size=$2 -D GROUP_M=$3 -D SCALE_MODE=1 --grid 132 $(args 8192 8192 4096) 2>&1 \
    | grep -E "   [a-z_]+__"
done 2>&1 | tee $out/ncu.txt
