#!/usr/bin/env bash
# Session 17 run 1: what fp8_matmul_persistent's epilogue costs at 8192x8192x4096 (each config
# timed by `tkc run --time` as it is and with its store skipped at run time, the only change);
# the persistent per-tensor conformance case with a producer on CUDA; a first look at Triton's
# FP8 persistent kernel as a peer (`bench/run-all fp8` on two shapes).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 \
  -k fp8_matmul_persistent 2>&1 | grep -v "^ok " | tee $out/conformance.txt
cp -r stdlib /tmp/stdlib_nostore
python3 - <<'PY'
p = "/tmp/stdlib_nostore/std/fp8_matmul.tk"
s = open(p).read()
old = "        store(c + rm[:, None] * ldc + rn[None, :], out as T, mask = in_bounds);\n    }\n}"
assert s.count(old) == 1
s = s.replace(old, "        if K > 1000000000 { store(c + rm[:, None] * ldc + rn[None, :], out as T, mask = in_bounds); }\n    }\n}")
open(p, "w").write(s)
PY
args="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192 scale_b=rand:f32:8192
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
{
for cfg in "BN=256 -D BK=128 -D num_warps=8 -D num_stages=3" "BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1" \
           "BN=256 -D BK=128 -D num_warps=8 -D num_stages=4" "BN=128 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=1"; do
  for lib in stdlib /tmp/stdlib_nostore; do
    for mode in 0 1; do
      echo "== $lib SCALE_MODE=$mode -D BM=128 -D $cfg"
      TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D $cfg -D SCALE_MODE=$mode \
        --grid 132 $args --time 100 2>&1 | tail -2
    done
  done
done
} 2>&1 | tee $out/epilogue.txt
OUT=$out/bench timeout 280 bench/run-all fp8 --fp8-shapes 8192x8192x4096,32x4096x4096 > /dev/null 2>&1
grep "^fp8\|Worst\|failed" $out/bench/log.txt
