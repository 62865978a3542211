#!/usr/bin/env bash
# Session 29, run 1 (prepared in session 28, whose device time ran out; run from the repository
# root with $OUT on the GPU machine; pack: tools/gpu-check --bench, carry .pack). About 5 minutes.
# Session 28 built two programs a CTA (ws 3) with TAIL_SPLIT (df27feb; codegen/README.md,
# "Two programs a CTA") and CPU-tested it only. Here:
#  1. conformance on CUDA against the interpreter: the ws 3 cases (the new `_tail2_` and
#     `_tail4_tiles_ping_pong` among them: 5 and 6 stages) and every TAIL_SPLIT case (tk-tma-stores now stages
#     128x256 TAIL_SPLIT 4's whole tiles unsplit per row and column); synccheck and racecheck
#     on a ws 3 TAIL_SPLIT 2 GEMM whose programs have parts and none;
#  2. per row/column timings, two rounds, at 8192x8192x4096 and 2048x11008x4096 (their last
#     waves half and a fifth full) and 2048x12288x4096: ws 3 in 6 stages (the tuned config),
#     ws 3 in 6 and 5 stages with TAIL_SPLIT 2, in 5 with 4, ws 1 128x128 in 5 stages with
#     TAIL_SPLIT 2 (the tuned one-program config at 2048x11008x4096):
#     whether ws 3 with TAIL_SPLIT belongs in fp8_matmul_persistent's @autotune space.
set -u
out=$OUT
. bench/gpu-env.sh
timeout 200 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k ping_pong > $out/conformance.txt 2>&1
timeout 120 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k tail >> $out/conformance.txt 2>&1
grep -E "conformance cases passed|FAIL|mismatch" $out/conformance.txt | head -8
for tool in synccheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D TAIL_SPLIT=2 \
    -D SCALE_MODE=1 --grid 6 $(fp8_args 330 264 800) 2>&1 | tail -2; echo "$tool exit $?"
done 2>&1 | tee $out/sanitizers.txt
run() { # M N K stages ws tail
  progs=$(( $5 == 3 ? 264 : 132 ))
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=$4 -D num_warps=4 -D warp_specialize=$5 -D TAIL_SPLIT=$6 -D SCALE_MODE=1 --grid $progs --time 100 \
    $(fp8_args $1 $2 $3) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 s$4 ws$5 tail$6/"
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096" "2048 12288 4096"; do
    for cfg in "6 3 1" "6 3 2" "5 3 2" "5 3 4" "5 1 2"; do run $shape $cfg; done
  done
done 2>&1 | tee $out/timing.txt
