#!/usr/bin/env bash
# Not yet run (prepared in session 25, whose device time ran out): a8931ea's stdlib
# fp8_matmul_persistent with TAIL_SPLIT on CUDA, then the FP8 section of the bench with its two
# TAIL_SPLIT configs in the tuner's space. Copy it into the session's bench/results folder and
# run it there on the GPU machine from the repository root with $OUT (pack: tools/gpu-check
# --bench; carry .pack). About 6 minutes.
#  1. its conformance cases against the interpreter (every config of its space on 3 programs,
#     _tail2 and _tail4 among them: a part all past N, and no whole wave);
#  2. TAIL_SPLIT 1 against 2 on the 128x128 producer config at 2048x11008x4096 per row/column,
#     two rounds (session 25's run 4 timed session 20's copy of the kernel: 0.1339 ms against
#     0.1355-0.1359 on the H200);
#  3. bench/run-all fp8 (the README's FP8 table, if on an H200), clocks sampled beside it.
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
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 280 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
grep "^fp8\|Worst\|failed" $out/fp8/log.txt | cut -c1-220
