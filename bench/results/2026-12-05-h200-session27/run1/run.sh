#!/usr/bin/env bash
# Not yet run (prepared in session 26, whose device time ran out). Copy it into the session's
# bench/results folder and run it there on the GPU machine from the repository root with $OUT
# (pack: tools/gpu-check --bench; carry .pack). About 7 minutes.
#  1. clusters (cluster_size 2) as of 321888b (unshared copies as whole tiles again, one cluster
#     barrier at the start, two programs a CTA on clusters too):
#     conformance -k cluster2 against the interpreter, then 128x128 (5 stages) and 128x256 (3)
#     with a producer and 128x128 two programs a CTA (warp_specialize 3) at 8192x8192x4096 and
#     2048x11008x4096 per row/column, with and without clusters, two rounds (session 26 run 3:
#     3-7% slower with clusters), and Nsight Compute's L2 bytes of the clustered 128x128 (1.22
#     GB against 1.03 without in run 3);
#  2. bench/run-all fp8: the README's FP8 table (if on an H200) with `.minnctapersm 1` on the
#     kernels with a producer (bfbb4e2; within noise in run 3's one round) and TAIL_SPLIT's
#     configs in fp8_matmul_persistent's space (their stdlib kernel passed on CUDA in run 1).
set -u
out=$OUT
. bench/gpu-env.sh
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k cluster2 -v > $out/conformance.txt 2>&1
grep "conformance cases passed" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096"; do
    # (warp_specialize 3 on clusters: the nvjet kernel's shape, two 128x128 programs a CTA)
    for cfg in "128 128 5 4 1 132" "128 256 3 8 1 132" "128 128 5 4 3 264"; do
      for cl in 1 2; do
        set -- $shape $cfg $cl
        echo "-- ${1}x${2}x$3 BM=$4 BN=$5 stages=$6 warps=$7 ws=$8 programs=$9 cluster_size=${10}"
        timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 \
          -D num_stages=$6 -D num_warps=$7 -D warp_specialize=$8 -D cluster_size=${10} -D SCALE_MODE=1 --grid $9 --time 200 \
          $(args $1 $2 $3) 2>&1 | tail -1
      done
    done
  done
done 2>&1 | tee $out/timing.txt
TK_CACHE_DIR=$(mktemp -d) timeout 100 ncu --metrics lts__t_bytes.sum,sm__cycles_elapsed.max -k regex:fp8_matmul --launch-count 1 \
  $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 \
  -D num_warps=4 -D warp_specialize=1 -D cluster_size=2 -D SCALE_MODE=1 --grid 132 $(args 2048 11008 4096) 2>&1 \
  | grep -E "   [a-z_]+__" | tee $out/ncu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 280 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
rm -f $out/fp8/summary.md # (8 files come back at most: summary.json renders it)
grep "^fp8\|Worst\|failed" $out/fp8/log.txt | cut -c1-220
