#!/usr/bin/env bash
# Not yet run (prepared in session 27, whose device time ran out). Copy it into the session's
# bench/results folder and run it there on the GPU machine from the repository root with $OUT
# (pack: tools/gpu-check --bench; carry .pack). About 6 minutes.
# Session 27 (bench/results/2026-12-05-h200-session27) found tk's FP8 consumers waiting for
# data at 6-7% of all samples and ws 1's epilogue at about 12% (its 4 warps expose every
# latency), and two programs a CTA (ws 3, whose epilogues overlap the other's MMAs) gaining a
# sixth stage: at 8192x8192x4096 it tied ws 1 (run 4), at 2048x11008x4096 not. Here:
#  1. bench/profile_fp8.py at 8192x8192x4096: ws 1 in 5 stages, ws 3 in 5 and 6, cuBLASLt:
#     does the sixth stage end ws 3's waits for data (full barriers) and how busy is the
#     tensor pipe (nvjet: 95%);
#  2. per row/column timings of the same configs and 128x256 ws 1 in 3 and 4 stages at the
#     FP8 bench's M >= 2048 shapes, two rounds: whether ws 3 in 6 stages belongs in
#     fp8_matmul_persistent's @autotune space.
set -u
out=$OUT
. bench/gpu-env.sh
timeout 280 python3 bench/profile_fp8.py --tkc $tkc --out /tmp/profile --config "128 128 5 4 1 1 8" \
  --config "128 128 5 4 3 1 8" --config "128 128 6 4 3 1 8" 2>&1 | tee $out/profile.md
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
for round in 1 2; do
  for shape in "8192 8192 4096" "4096 4096 4096" "2048 12288 4096" "2048 4096 4096" "2048 11008 4096" "2048 4096 11008"; do
    for cfg in "128 128 5 4 1" "128 128 6 4 3" "128 256 3 8 1" "128 256 4 8 1"; do
      set -- $shape $cfg
      progs=$(( $8 == 3 ? 264 : 132 ))
      timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 \
        -D num_stages=$6 -D num_warps=$7 -D warp_specialize=$8 -D SCALE_MODE=1 --grid $progs --time 100 $(args $1 $2 $3) 2>&1 \
        | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 $4x$5 s$6 ws$8/"
    done
  done
done 2>&1 | tee $out/timing.txt
