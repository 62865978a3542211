#!/usr/bin/env bash
# Session 31, run 2 (its Nsight Compute pass, the same machine and pack right after): ws 3 in 6
# stages on clusters of 2 at 2048x11008x4096 per row/column, with one copy of the consumers'
# code and with each program its own (TK_EXPERIMENT_COPIES_ON_CLUSTERS): one launch each under
# `ncu --set full`, the details page and the SASS with its stall samples.
. bench/gpu-env.sh >/dev/null
A="stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D cluster_size=2 -D SCALE_MODE=1 --grid 264 $(fp8_args 2048 11008 4096)"
for v in one copies; do
  if [ $v = copies ]; then export TK_EXPERIMENT_COPIES_ON_CLUSTERS=1; fi
  TK_CACHE_DIR=/tmp/c-$v timeout 120 ncu --set full --import-source no -k regex:fp8 --launch-count 1 -f -o /tmp/$v $tkc run $A > /dev/null 2>&1
  ncu --import /tmp/$v.ncu-rep --page source --csv --print-source sass > /tmp/$v-sass.csv
  ncu --import /tmp/$v.ncu-rep --page details --print-details all > $OUT/$v-details.txt
  xz -9 < /tmp/$v-sass.csv > $OUT/$v-sass.csv.xz
  grep -E "Elapsed Cycles|Pipe Tensor Cycles Active|Registers Per|Executed Ipc A" $OUT/$v-details.txt | head -5
done
