#!/usr/bin/env bash
# Session 17 run 7: TMA stores in the tiled fp8_matmul (one store a program) for tiles of
# 128x128 and more (this build, uncommitted), against the same kernel with its store kept
# ordinary (its mask gets `&& K > 0`), by `tkc run --time`, at 4096^3 and 2048x4096x11008, per
# row/column: 128x256 s3 and 128x128 s4 (TMA stores in this build), and 128x256 s4 (whose rings
# leave no room for the staging buffer: ordinary in both, a control).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
mkdir -p /tmp/plain && cp -r stdlib /tmp/plain/
python3 - <<'PY'
p = "/tmp/plain/stdlib/std/fp8_matmul.tk"
s = open(p).read()
old = "    store(c + rm[:, None] * ldc + rn[None, :], out as T, mask = in_bounds);\n}\n\n// The same product in a persistent kernel"
assert s.count(old) == 1
open(p, "w").write(s.replace(old, old.replace("mask = in_bounds)", "mask = in_bounds && K > 0)")))
PY
{
for shape in "4096 4096 4096" "2048 4096 11008"; do
  set -- $shape; m=$1; n=$2; k=$3
  args="a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n bias=zeros:bf16:1
    residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:1 counters=zeros:i32:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n"
  for cfg in "BM=128 -D BN=256 -D num_stages=3" "BM=128 -D BN=128 -D num_stages=4" "BM=128 -D BN=256 -D num_stages=4"; do
    for lib in stdlib /tmp/plain/stdlib; do
      echo "== $lib ${m}x${n}x$k -D $cfg"
      $tkc run $lib/std/fp8_matmul.tk --kernel fp8_matmul -D $cfg -D BK=128 -D num_warps=8 -D SCALE_MODE=1 \
        --grid "cdiv($m,128)*cdiv($n,$(echo $cfg | grep -o 'BN=[0-9]*' | cut -d= -f2)),1" $args --time 100 2>&1 | tail -1
    done
  done
done
} 2>&1 | tee $out/timing.txt
