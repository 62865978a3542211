#!/usr/bin/env bash
# Session 18 run 4: broadcasts of tiles loaded just before them reread by each thread
# (tkg.reread_loads) instead of moving through shared memory, and the block-wise FP8 scales'
# column factor as one scalar load when the tile's columns lie in one block. Block-wise FP8
# (SCALE_MODE 2) at 8192x8192x4096, `tkc run --time 50`: old (af837b7's build, 4fe9e07's
# fp8_matmul.tk, shipped in .pack/oldlib) against new, interleaved; then the whole conformance
# suite on CUDA against the interpreter and the sanitizers on the block-wise persistent kernel.
out=$OUT
for v in old new; do mkdir -p /tmp/$v; done
tar -xJf .pack/tk-gpu-old.tar.xz -C /tmp/old && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
lib_old=$PWD/.pack/oldlib lib_new=$PWD/stdlib
f8b="a=rand:f8e4m3:8192x4096 b=rand:f8e4m3:8192x4096 c=zeros:bf16:8192x8192 scale_a=rand:f32:8192x32 scale_b=rand:f32:64x32
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=8192 N=8192 K=4096 lda=4096 ldb=4096 ldc=8192 ldr=8192 ldm=8192"
run() { # version, config...
  local v=$1; shift; local lib=lib_$v
  LD_LIBRARY_PATH=/tmp/$v/tk/bin TK_STDLIB_DIR=${!lib} /tmp/$v/tk/bin/tkc run ${!lib}/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --grid 132 -D SCALE_MODE=2 "$@" $f8b --time 50 2>&1 | tail -1
}
{
for round in 1 2; do
  for v in old new; do
    for cfg in "-D BM=128 -D BN=128 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=1" \
               "-D BM=128 -D BN=128 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=0" \
               "-D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1" \
               "-D BM=64 -D BN=128 -D BK=128 -D num_warps=4 -D num_stages=4 -D warp_specialize=1"; do
      echo "== $v round $round $cfg"; run $v $cfg
    done
  done
done
} 2>&1 | tee $out/timing.txt
export LD_LIBRARY_PATH=/tmp/new/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/new/tk/bin/tkc
for tool in memcheck racecheck synccheck; do
  for ws in 0 1; do
    echo "-- $tool fp8_matmul_persistent SCALE_MODE=2 warp_specialize=$ws M=200 N=136 K=1056"
    compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda \
      -D BM=128 -D BN=128 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=$ws -D SCALE_MODE=2 \
      --grid 2 a=rand:f8e4m3:200x1056 b=rand:f8e4m3:136x1056 c=zeros:bf16:200x136 \
      scale_a=rand:f32:200x9 scale_b=rand:f32:2x9 bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 \
      M=200 N=136 K=1056 lda=1056 ldb=1056 ldc=136 ldr=136 ldm=136 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
TK_STDLIB_DIR=$PWD/stdlib timeout 400 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
