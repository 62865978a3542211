#!/usr/bin/env bash
# Session 23 run 5: run 4's joules-per-GEMM windows (../4-energy/energy.py, each contender back to
# back for 3 s under the power cap) at the shapes where tk trailed per call in run 3: 4096^3
# (0.97x per tensor) and 2048x12288x4096 (0.96x per tensor), tk's configs plus BK64 in 6 stages.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-} TK_STDLIB_DIR=$PWD/stdlib
export TKC_LIBRARY=$(ls /tmp/tkgpu/tk/bin/libtkc.so.*) PYTHONPATH=$PWD/runtime/python TK_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
for shape in 4096x4096x4096 2048x12288x4096; do
  timeout 200 python3 bench/results/2026-12-05-h200-session23/4-energy/energy.py $shape 2>&1 | tee -a $out/energy.txt
done
kill $sampler
python3 - "$out" <<'PY' | tee $out/summary.txt
import sys, datetime
out = sys.argv[1]
samples = []
for line in open(out + "/clocks.csv"):
    f = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
        samples.append((t, float(f[1].split()[0]), float(f[2].split()[0]), f[4]))
    except (ValueError, IndexError):
        pass
for line in open(out + "/energy.txt"):
    if line.startswith("SHAPE "):
        print(line.strip())
    if not line.startswith("WINDOW "):
        continue
    head, rest = line[7:].rsplit(" ms ", 1)
    parts = head.split()
    name, start, end, ms = " ".join(parts[:-3]), float(parts[-3]), float(parts[-2]), float(parts[-1])
    inside = [s for s in samples if start + 0.3 <= s[0] <= end]
    if not inside:
        print("%-32s %.4f ms  (no samples)" % (name, ms)); continue
    mhz = sum(s[1] for s in inside) / len(inside); watts = sum(s[2] for s in inside) / len(inside)
    capped = sum(1 for s in inside if int(s[3], 16) & 4) / len(inside)
    print("%-32s %.4f ms  %6.1f W  %6.0f MHz  %5.1f mJ/GEMM  power-capped %3.0f%% of %d samples  %s" %
          (name, ms, watts, mhz, watts * ms, 100 * capped, len(inside), rest.strip()))
PY
