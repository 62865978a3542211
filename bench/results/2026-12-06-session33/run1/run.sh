#!/usr/bin/env bash
# Session 33, run 1: the FP8 GEMM rows where tk trails (2048x4096x11008, 8192x8192x4096 per
# row/column). (1) `bench/run-all fp8` at those shapes and 4096^3, now with each tuner's whole
# table in summary.json (tk_tuning): does the tuner see what the timings after it see? (2) the
# contending configs at 2048x4096x11008 timed directly (`tkc run --time 100`), two rounds
# interleaved. (3) bench/profile_fp8.py at 2048x4096x11008: cycles at base clocks of tk's
# 128x256 with a producer and of two programs a CTA against cuBLASLt.
# (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 240 bench/run-all fp8 --fp8-shapes 2048x4096x11008,8192x8192x4096,4096x4096x4096 > /dev/null 2>&1
rm -f $out/fp8/summary.md
grep "^fp8\|Worst\|failed\|took" $out/fp8/log.txt | cut -c1-220
kill $sampler
persistent() { # label M N K MODE BM BN STAGES WARPS WS [more -D]
  local label=$1 M=$2 N=$3 K=$4 mode=$5 bm=$6 bn=$7 st=$8 w=$9 ws=${10}; shift 10
  local progs=$(( ws == 3 ? 264 : 132 ))
  timeout 60 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$bm -D BN=$bn -D BK=128 \
    -D num_stages=$st -D num_warps=$w -D warp_specialize=$ws -D SCALE_MODE=$mode --grid $progs "$@" --time 100 \
    $(fp8_args $M $N $K) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${M}x${N}x$K mode$mode persistent $label/"
}
tiled() { # label M N K MODE BM BN STAGES WARPS WS
  local label=$1 M=$2 N=$3 K=$4 mode=$5 bm=$6 bn=$7 st=$8 w=$9 ws=${10}
  timeout 60 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul --backend=cuda -D BM=$bm -D BN=$bn -D BK=128 \
    -D num_stages=$st -D num_warps=$w -D warp_specialize=$ws -D SCALE_MODE=$mode --grid "cdiv(N,BN),cdiv(M,BM),1" --time 100 \
    $(fp8_args $M $N $K) workspace=zeros:f32:1 counters=zeros:i32:1 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul'/${M}x${N}x$K mode$mode tiled $label/"
}
for round in 1 2; do
  for mode in 0 1; do
    tiled "128x256 s4" 2048 4096 11008 $mode 128 256 4 8 0
    persistent "128x256 s4 ws1" 2048 4096 11008 $mode 128 256 4 8 1
    persistent "128x256 s3 ws1" 2048 4096 11008 $mode 128 256 3 8 1
    persistent "128x256 s3" 2048 4096 11008 $mode 128 256 3 8 0
    persistent "128x128 s6 ws3" 2048 4096 11008 $mode 128 128 6 4 3
  done
done 2>&1 | tee $out/timing.txt
timeout 200 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile --shape 2048 4096 11008 \
  --config "128 256 4 8 1 1 8" --config "128 128 6 4 3 1 8" 2>&1 | tee $out/profile.md
ls $out
