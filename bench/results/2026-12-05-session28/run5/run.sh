#!/usr/bin/env bash
# Session 28, run 5: ws 3 with both programs' k-loops in uniform registers (942da88, the
# copies chosen by vote.sync.all): conformance of the ws 3 cases on CUDA against the
# interpreter, synccheck and racecheck on one ws 3 GEMM, and per row/column timings of ws 3
# (128x128 in 4-6 stages, 64x256 in 6) beside ws 1 (128x128 in 5 stages, 128x256 in 4) at the
# FP8 bench's M >= 2048 shapes. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
run() { # M N K BM BN stages warps ws [extra tkc args]
  progs=$(( $8 == 3 ? 264 : 132 ))
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 \
    -D num_stages=$6 -D num_warps=$7 -D warp_specialize=$8 -D SCALE_MODE=1 --grid $progs "${@:9}" $(args $1 $2 $3) 2>&1 | tail -1 \
    | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 $4x$5 s$6 ws$8/"
}
for tool in synccheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 --grid 7 \
    $(args 640 768 512) 2>&1 | tail -2; echo "$tool exit $?"
done 2>&1 | tee $out/sanitizers.txt
timeout 170 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k tiles_ping_pong > $out/conformance.txt 2>&1
tail -3 $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head -5
for shape in "8192 8192 4096" "2048 11008 4096" "4096 4096 4096" "2048 12288 4096" "2048 4096 4096" "2048 4096 11008"; do
  for cfg in "128 128 5 4 1" "128 256 4 8 1" "128 128 4 4 3" "128 128 5 4 3" "128 128 6 4 3" "64 256 6 4 3"; do
    run $shape $cfg --time 100
  done
done 2>&1 | tee $out/timing.txt
