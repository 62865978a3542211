#!/usr/bin/env bash
# Session 42, run 1. (from the repository root with $OUT; carry .pack)
# 1. Session 41's prepared run 3: fp8_gemv_row's config forced in the batch-1 FP8 step against
#    the tuner's pick (is the config that wins each GEMV alone also the step's best?).
# 2. The FP8 GEMM's worst shape, 2048x4096x11008 (per row/column): each candidate config per
#    call (tkc run --time, L2 flushed), then Nsight Compute on the tuner's pick, the persistent
#    forms and cuBLASLt's kernel (bench/profile_fp8.py): where tk's 3-4% goes.
set -u
. bench/gpu-env.sh
bash bench/results/2026-12-07-session41/run3/run.sh
M=2048 N=4096 K=11008
t() { # kernel grid -D...
  local kernel=$1 grid=$2 extra=""; shift 2
  [ $kernel = fp8_matmul ] && extra="workspace=zeros:f32:1 counters=zeros:i32:1"
  timeout 40 $tkc run stdlib/std/fp8_matmul.tk --kernel $kernel --backend=cuda -D BK=128 -D SCALE_MODE=1 "$@" \
    --grid $grid --time 200 $(fp8_args $M $N $K) $extra 2>&1 | tail -1 | sed "s/^/$kernel $* grid $grid: /"
}
{
for round in 1 2; do
  t fp8_matmul 256 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4
  t fp8_matmul_persistent 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1
  t fp8_matmul_persistent 132 -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=3 -D warp_specialize=1
  t fp8_matmul_persistent 264 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 -D warp_specialize=3
  t fp8_matmul_persistent 264 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=6 -D warp_specialize=3 -D GROUP_M=16
  t fp8_matmul_persistent 132 -D BM=128 -D BN=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1
done
} > $OUT/gemm_times.txt 2>&1
cat $OUT/gemm_times.txt
timeout 280 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/prof --shape $M $N $K \
  --config "128 256 4 8 1 1 8" --config "128 128 6 4 3 1 8" > $OUT/profile.txt 2>&1
cat $OUT/profile.txt
