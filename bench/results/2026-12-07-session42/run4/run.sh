#!/usr/bin/env bash
# Session 42, run 4: where STREAM_K's time goes. Nsight Compute (one launch each, its base
# clocks) on fp8_matmul_persistent 128x256 ws1 s4 at 4096^3 per row/column, without and with
# STREAM_K (run 3: 0.098 against 0.126 ms per call): speed of light, warp states, memory, and
# the SASS with its stall samples. (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=""
for sk in false true; do
  timeout 200 ncu --set full --import-source no -k regex:fp8_matmul --launch-count 1 -f -o /tmp/sk_$sk \
    $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BK=128 -D SCALE_MODE=1 \
    -D BM=128 -D BN=256 -D num_warps=8 -D num_stages=4 -D warp_specialize=1 -D STREAM_K=$sk --grid 132 \
    $(fp8_args 4096 4096 4096) > /dev/null 2>&1
  ncu --import /tmp/sk_$sk.ncu-rep --page details --print-details all > $OUT/details_$sk.txt 2>&1
  ncu --import /tmp/sk_$sk.ncu-rep --page source --csv --print-source sass > /tmp/sass_$sk.csv 2>&1
  python3 - /tmp/sass_$sk.csv > $OUT/hot_$sk.txt <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = next(i for i, r in enumerate(rows) if "Warp Stall Sampling (All Samples)" in r)
head = rows[h]; s = head.index("Warp Stall Sampling (All Samples)"); src = head.index("Source"); ex = head.index("Instructions Executed")
body = [r for r in rows[h + 1:] if len(r) > s and r[s].isdigit()]
total = sum(int(r[s]) for r in body) or 1
for r in sorted(body, key=lambda r: -int(r[s]))[:40]:
    print("%5.1f%% %10s  %s" % (100.0 * int(r[s]) / total, r[ex], r[src][:110]))
PY
  grep -E "Duration|Elapsed Cycles|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit Rate|Tensor|Registers Per|Stall|Warp Cycles Per Issued" $OUT/details_$sk.txt | head -30 | sed "s/^/$sk: /"
  head -25 $OUT/hot_$sk.txt
done
