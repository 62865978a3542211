#!/usr/bin/env bash
# Session 47, run 1 (prepared, not run: no GPU was lent in session 47; pack of 3a9bd02 or later
# by tools/gpu-check; repository root, $OUT; carry .pack). Whether an L2 eviction priority on the
# FP8 GEMM's operand copies pays. Each variant is a copy of stdlib/std/fp8_matmul.tk with `evict`
# on fp8_tile_product's two loads (`ta`, `tb`: A's and B's, swapped under SWAP_AB, where `ta`
# reads the weights), timed by `tkc run --time 200` (per call flushed and rested / back to back),
# the variants interleaved, two rounds.
# 1. M = 32 (decode-sized GEMMs, each weight byte read once): session 37 found the batch-1 GEMV's
#    weights, evicted first, 1.2x faster (they had pushed out of L2 the activations every program
#    reads); the four M = 32 rows run at 58-61% of their roofline, as every peer does. The
#    configs are the ones session 46's run 1 tuned.
# 2. 8192x8192x4096 and 2048x12288x4096 per row and column, 128x128 ws 3 s6 at GROUP_M 4 and 8:
#    session 29's profile had tk reading 331 MB from DRAM against nvjet's 235 (the operands are
#    64 MB) and its consumers polling full barriers in 4.4% of stall samples against 0.7%
#    (session 46's run 4, not run there).
# 3. Nsight Compute's DRAM bytes and L2 hit rate for the variant of each part against none.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=
variant() { # variant TA_EVICT TB_EVICT: the stdlib file with those priorities (normal: none)
  local file=/tmp/fp8-$1-$2.tk
  sed -e "s/let ta = load(pa, /let ta = load(pa, evict = \"$1\", /" -e "s/let tb = load(pb, /let tb = load(pb, evict = \"$2\", /" \
    -e 's/, evict = "normal"//' stdlib/std/fp8_matmul.tk > $file
  echo $file
}
swap_ab="-D BM=32 -D BN=64 -D SPLIT_K=1 -D num_warps=4 -D warp_specialize=1 -D SWAP_AB=1"
for round in 1 2; do
  # SWAP_AB: ta reads the weights. Grid: cdiv(N, 64) programs.
  for case in "0 11008 4096 256 8" "1 11008 4096 128 8" "0 12288 4096 256 4" "0 4096 4096 256 8" "1 4096 4096 128 8" \
              "0 4096 11008 256 8" "1 4096 11008 256 8"; do
    set -- $case
    for policy in "normal normal" "first normal" "first last"; do
      echo -n "ta,tb evict ${policy/ /,} mode $1: "
      FP8_SCALE_MODE=$1 FP8_SOURCE=$(variant $policy) fp8_kernel_time fp8_matmul 32 $2 $3 $(( ($2 + 63) / 64 )) $swap_ab \
        -D BK=$4 -D num_stages=$5
    done
  done
  # Without SWAP_AB (32x11008x4096 per tensor, 32x12288x4096 per row and column): tb reads the weights.
  for case in "0 11008" "1 12288"; do
    set -- $case
    for policy in "normal normal" "normal first" "last first"; do
      echo -n "ta,tb evict ${policy/ /,} mode $1: "
      FP8_SCALE_MODE=$1 FP8_SOURCE=$(variant $policy) fp8_kernel_time fp8_matmul_persistent 32 $2 4096 132 -D BK=128 \
        -D BM=64 -D BN=128 -D num_stages=4 -D num_warps=4 -D warp_specialize=1
    done
  done
  for shape in "8192 8192 4096" "2048 12288 4096"; do
    for g in 4 8; do
      for policy in "normal normal" "normal last" "last normal" "first last"; do
        echo -n "ta,tb evict ${policy/ /,}: "
        FP8_SOURCE=$(variant $policy) fp8_persistent_time $shape 264 -D BM=128 -D BN=128 -D num_stages=6 -D num_warps=4 \
          -D warp_specialize=3 -D GROUP_M=$g
      done
    done
  done
done 2>&1 | tee $OUT/timing.txt
ncu_metrics() { # ncu_metrics LABEL KERNEL M N K GRID -D...: DRAM bytes, L2 hit rate and time of one launch
  local label=$1 kernel=$2 M=$3 N=$4 K=$5 grid=$6; shift 6
  timeout 120 ncu --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum -k regex:fp8 \
    --launch-count 1 $tkc run ${FP8_SOURCE} --kernel $kernel --backend=cuda "$@" --grid $grid $(fp8_args $M $N $K) 2>&1 \
    | grep -E "dram__|lts__|gpu__time" | sed "s/^/$label /"
}
for policy in "normal normal" "first normal"; do
  FP8_SOURCE=$(variant $policy) ncu_metrics "32x12288x4096 ${policy/ /,}" fp8_matmul 32 12288 4096 192 $swap_ab -D BK=256 \
    -D num_stages=4 -D SCALE_MODE=0
done 2>&1 | tee $OUT/ncu.txt
for policy in "normal normal" "normal last"; do
  FP8_SOURCE=$(variant $policy) ncu_metrics "8192x8192x4096 ${policy/ /,}" fp8_matmul_persistent 8192 8192 4096 264 -D BM=128 \
    -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 -D GROUP_M=4
done 2>&1 | tee -a $OUT/ncu.txt
