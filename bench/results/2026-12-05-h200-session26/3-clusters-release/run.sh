#!/usr/bin/env bash
# Session 26 run 3. Run 2 found clusters correct but 1.5-3x slower. This pack's consumers arrive
# on the other CTA's barrier at the CTA's scope (CUTLASS's form; run 2's `.release.cluster`
# arrival also waits for the warp's earlier global writes), and kernels with a producer whose
# shared memory keeps a multiprocessor to one CTA say `.minnctapersm 1`, so that ptxas honours
# their setmaxnreg (ignored before, C7508). Two packs: .pack/old (run 2's, neither) and .pack
# (this one).
# 1. conformance -k cluster2 on CUDA against the interpreter;
# 2. per row/column at 8192x8192x4096 and 2048x11008x4096, 128x128 in 5 stages and 128x256 in 3
#    with a producer: old pack, new pack, new pack on clusters; one round (the device time left).
set -u
out=$OUT
for p in old new; do
  src=.pack/tk-gpu.tar.xz; [ $p = old ] && src=.pack/old/tk-gpu.tar.xz
  mkdir -p /tmp/tk-$p && tar -xJf $src -C /tmp/tk-$p
done
{ date -u; cat /tmp/tk-new/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export TK_STDLIB_DIR=$PWD/stdlib
LD_LIBRARY_PATH=/tmp/tk-new/tk/bin timeout 60 python3 tests/conformance/run.py --tkc /tmp/tk-new/tk/bin/tkc --backend cuda \
  --compare-interp -j 14 -k cluster2 -v > $out/conformance.txt 2>&1; grep "conformance cases passed" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
for round in 1; do
for shape in "8192 8192 4096" "2048 11008 4096"; do
  for cfg in "128 128 5 4" "128 256 3 8"; do
    for v in "old 1" "new 1" "new 2"; do
      set -- $shape $cfg $v
      echo "-- ${1}x${2}x$3 BM=$4 BN=$5 stages=$6 warps=$7 pack=$8 cluster_size=$9"
      LD_LIBRARY_PATH=/tmp/tk-$8/tk/bin TK_CACHE_DIR=$(mktemp -d) timeout 30 /tmp/tk-$8/tk/bin/tkc run stdlib/std/fp8_matmul.tk \
        --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 -D num_stages=$6 -D num_warps=$7 \
        -D warp_specialize=1 -D cluster_size=$9 -D SCALE_MODE=1 --grid 132 --time 200 $(args $1 $2 $3) 2>&1 | tail -2
    done
  done
done
done 2>&1 | tee $out/timing.txt
# 3. Where the clustered kernel's warps wait (Nsight Compute's warp states) at 2048x11008x4096,
#    (run 1 has the same config without clusters).
for cl in 2; do
  echo "== ncu 128x128 5 stages cluster_size=$cl"
  LD_LIBRARY_PATH=/tmp/tk-new/tk/bin TK_CACHE_DIR=$(mktemp -d) timeout 100 ncu --section WarpStateStats --section SpeedOfLight \
    --metrics lts__t_bytes.sum,sm__cycles_elapsed.max -k regex:fp8_matmul --launch-count 1 /tmp/tk-new/tk/bin/tkc run \
    stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 -D num_warps=4 \
    -D warp_specialize=1 -D cluster_size=$cl -D SCALE_MODE=1 --grid 132 $(args 2048 11008 4096) 2>&1 \
    | grep -E "Stall|Warp Cycles|Duration|Throughput|lts__t_bytes|sm__cycles" | head -30
done 2>&1 | tee $out/ncu.txt
