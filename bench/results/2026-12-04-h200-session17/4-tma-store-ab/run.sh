#!/usr/bin/env bash
# Session 17 run 4: `bench/run-all fp8` with TMA stores in the persistent kernels only (this
# build), then, in the same run, three of its shapes again with fp8_matmul_persistent's store
# kept ordinary (its mask gets `&& K > 0`, which the rectangle proof does not read: the old
# stmatrix epilogue, nothing else changed); examples/matmul.tk's matmul_persistent (f16) by
# `tkc run --time` with and without the same change.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
mkdir -p /tmp/plain && cp -r stdlib examples /tmp/plain/
python3 - <<'PY'
for p, old, count in [("/tmp/plain/stdlib/std/fp8_matmul.tk", "out as T, mask = in_bounds);\n    }\n}", 1),
                      ("/tmp/plain/examples/matmul.tk", "acc as f16, mask = rm[:, None] < M && rn[None, :] < N);", 2)]:
    s = open(p).read()
    assert s.count(old) == count, p
    s = s.replace(old, old.replace(");", " && K > 0);", 1))
    open(p, "w").write(s)
PY
OUT=$out/fp8-tma timeout 330 bench/run-all fp8 > /dev/null 2>&1
grep "^fp8\|Worst" $out/fp8-tma/log.txt | cut -c1-200
mv stdlib /tmp/stdlib_tma && cp -r /tmp/plain/stdlib stdlib
OUT=$out/fp8-plain timeout 150 bench/run-all fp8 --fp8-shapes 8192x8192x4096,4096x4096x4096,2048x12288x4096 > /dev/null 2>&1
rm -rf stdlib && mv /tmp/stdlib_tma stdlib
echo "== plain"; grep "^fp8" $out/fp8-plain/log.txt | cut -c1-200
{
for shape in 8192 4096; do
  for cfg in "BN=256 -D BK=64 -D num_warps=8 -D num_stages=3 -D warp_specialize=1" "BN=256 -D BK=64 -D num_warps=8 -D num_stages=3"; do
    for src in examples /tmp/plain/examples; do
      echo "== $src f16 ${shape}^3 -D BM=128 -D $cfg"
      $tkc run $src/matmul.tk --kernel matmul_persistent -D BM=128 -D $cfg --grid 132 a=rand:f16:${shape}x$shape b=rand:f16:${shape}x$shape \
        c=zeros:f16:${shape}x$shape M=$shape N=$shape K=$shape lda=$shape ldb=$shape ldc=$shape --time 30 2>&1 | tail -1
    done
  done
done
} 2>&1 | tee $out/matmul-timing.txt
