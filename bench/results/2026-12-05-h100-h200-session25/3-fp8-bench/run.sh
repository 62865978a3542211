#!/usr/bin/env bash
# The second device call after tiles-ping-pong.sh (same pack; copy both into the
# session's results folder). `bench/run-all fp8` twice:
#  1. with dependent launches off (TK_DEPENDENT_LAUNCH=0) and the @autotune spaces as committed:
#     the baseline of session 23's run 6, less fp8_matmul's gdc_wait;
#  2. with dependent launches on and, when TILES_PING_PONG=1 (tiles-ping-pong.sh passed its
#     conformance and sanitizers), four warp_specialize 3 configs added to
#     fp8_matmul_persistent's space (128x128 and 64x256 on 4-warp programs, 4 and 5 stages),
#     so that the tuner sets them against the committed ones.
# The M=32 rows back to back (dependent launch) and the M=2048 rows (two programs a CTA) are the
# questions; the clocks are sampled beside both, as in session 23.
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
TK_DEPENDENT_LAUNCH=0 OUT=$out/fp8-plain timeout 265 bench/run-all fp8 > /dev/null 2>&1
rm -f $out/fp8-plain/summary.md # (8 files come back at most: summary.json renders it)
grep "^fp8\|Worst\|failed" $out/fp8-plain/log.txt | cut -c1-200
if [ "${TILES_PING_PONG:-0}" = 1 ]; then
  python3 - <<'PY'
import re
p = "stdlib/std/fp8_matmul.tk"
s = open(p).read()
head = s.index("kernel fp8_matmul_persistent(")
at = s.rindex("])", 0, head)
extra = "".join("    { BM: %d, BN: %d, BK: 128, num_warps: 4, num_stages: %d, warp_specialize: 3 },\n" % c
                for c in [(128, 128, 4), (128, 128, 5)])
s = s[:at] + extra + s[at:]
open(p, "w").write(s)
PY
  grep "warp_specialize: 3" stdlib/std/fp8_matmul.tk | tee -a $out/machine.txt
fi
OUT=$out/fp8-dependent timeout 290 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
rm -f $out/fp8-dependent/summary.md
grep "^fp8\|Worst\|failed" $out/fp8-dependent/log.txt | cut -c1-200
