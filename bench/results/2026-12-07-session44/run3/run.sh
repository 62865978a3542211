#!/usr/bin/env bash
# Session 44, run 3 (pack of 641ffa8; repository root, $OUT; carry .pack): run 2 found the
# persistent kernel's tile order matter at 8192x8192x4096 (GROUP_M 16 and 32 12-20% slower
# than 8, 4 as fast or faster). `tkc tune` on fp8_group_m.tk (std/fp8_matmul.tk with
# fp8_matmul_persistent's space: ws 3 s6 at GROUP_M 1, 2, 3, 4, 6, 8; GROUP_M 4 with
# TAIL_SPLIT 2; 128x256 ws 1 s4 at GROUP_M 4) at the M >= 2048 shapes of bench/run-all fp8, per
# row/column.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tk-cache-run3
for shape in "8192 8192 4096" "4096 4096 4096" "2048 12288 4096" "2048 11008 4096" "2048 4096 11008" "2048 4096 4096"; do
  set -- $shape
  echo "== $1x$2x$3 SCALE_MODE=1" >> $OUT/tune.txt
  timeout 100 $tkc tune bench/results/2026-12-07-session44/run3/fp8_group_m.tk --kernel fp8_matmul_persistent \
    -D BK=128 -D SCALE_MODE=1 --grid 'multiprocessors * resident_programs_per_multiprocessor' \
    $(fp8_args $1 $2 $3) 2>&1 | grep -v "^\[" >> $OUT/tune.txt
done
cat $OUT/tune.txt
