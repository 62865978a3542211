#!/usr/bin/env bash
# Session 26 run 2: clusters of 2 CTAs (cluster_size 2) on fp8_matmul_persistent, first GPU run.
# 1. conformance -k cluster2 on CUDA against the interpreter (shared and unshared steps, a
#    last tile alone, 3 programs rounded up to 4 CTAs, 128x256, per tensor), and the earlier
#    persistent FP8 cases (nothing else changed); the same for the example's f16
#    matmul_persistent (its cluster cases: an odd grid, a last tile alone, short and empty K);
# 2. compute-sanitizer (memcheck, racecheck, synccheck) on the first cluster case's shape;
# 3. per row/column at 8192x8192x4096 and 2048x11008x4096: 128x128 (4 and 5 stages) and
#    128x256 with a producer, each with and without clusters, two rounds; then Nsight
#    Compute's cycles and L2 bytes for the clustered 128x128.
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
timeout 100 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_matmul_persistent -v \
  > $out/conformance.txt 2>&1
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k example.matmul_persistent -v \
  >> $out/conformance.txt 2>&1; grep "conformance cases passed" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head -20
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
{
for tool in memcheck racecheck synccheck; do
  echo "== $tool"
  timeout 60 compute-sanitizer --tool $tool $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda \
    -D BM=128 -D BN=128 -D BK=128 -D num_stages=4 -D num_warps=4 -D warp_specialize=1 -D cluster_size=2 -D SCALE_MODE=1 \
    --grid 2 $(args 330 264 800) 2>&1 | tail -3
done
} 2>&1 | tee $out/sanitizer.txt
for round in 1 2; do
for shape in "8192 8192 4096" "2048 11008 4096"; do
  for cfg in "128 128 4 4" "128 128 5 4" "128 256 3 8"; do
    for cl in 1 2; do
      set -- $shape $cfg
      echo "-- ${1}x${2}x$3 BM=$4 BN=$5 stages=$6 warps=$7 cluster_size=$cl"
      timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 \
        -D num_stages=$6 -D num_warps=$7 -D warp_specialize=1 -D cluster_size=$cl -D SCALE_MODE=1 --grid 132 --time 200 \
        $(args $1 $2 $3) 2>&1 | tail -1
    done
  done
done
done 2>&1 | tee $out/timing.txt
m="gpu__time_duration.sum,sm__cycles_elapsed.max,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__cluster_dim_x,launch__grid_size"
for shape in "8192 8192 4096" "2048 11008 4096"; do
  set -- $shape
  echo "== ${1}x${2}x$3 tk 128x128 5 stages, clusters of 2"
  TK_CACHE_DIR=$(mktemp -d) timeout 100 ncu --metrics $m -k regex:fp8_matmul --launch-count 1 $tkc run stdlib/std/fp8_matmul.tk \
    --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 -D num_warps=4 -D warp_specialize=1 \
    -D cluster_size=2 -D SCALE_MODE=1 --grid 132 $(args $1 $2 $3) 2>&1 | grep -E "   [a-z_]+__"
done 2>&1 | tee $out/ncu.txt
