#!/usr/bin/env bash
# Session 16 run 1: fp8_matmul with its scales loaded before the K loop, programmatic dependent
# launch (and the producer warpgroup's own wait), SWAP_AB split-K configs. On the GPU: the
# fp8_matmul conformance cases on CUDA against the interpreter; racecheck and synccheck on the
# warp-specialized kernels that now wait; then `bench/run-all fp8` with this stdlib and with
# session 15's (62cecc8, .pack/stdlib_old) in the same run.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 -k fp8_matmul 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
for tool in racecheck synccheck; do
  for k in fp8_matmul fp8_matmul_persistent; do
    grid=$([ $k = fp8_matmul ] && echo "cdiv(200,128)*cdiv(136,128),1" || echo 2)
    echo "-- $tool $k ws=1 M=200 N=136 K=544"
    compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk --kernel $k --backend=cuda \
      -D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1 -D SCALE_MODE=1 \
      --grid "$grid" a=rand:f8e4m3:200x544 b=rand:f8e4m3:136x544 c=zeros:bf16:200x136 \
      scale_a=rand:f32:200 scale_b=rand:f32:136 bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 \
      $([ $k = fp8_matmul ] && echo "workspace=zeros:f32:1 counters=zeros:i32:4") \
      M=200 N=136 K=544 lda=544 ldb=544 ldc=136 ldr=136 ldm=136 2>&1 | tail -2
  done
done 2>&1 | tee $out/sanitizer.txt
# (bench/run-all reads ./stdlib: the old variant runs with session 15's in its place.)
for v in new old; do
  if [ $v = old ]; then mv stdlib /tmp/stdlib_new && cp -r .pack/stdlib_old stdlib; fi
  OUT=$out/bench-$v timeout 200 bench/run-all fp8 > /dev/null 2>&1
  if [ $v = old ]; then rm -rf stdlib && mv /tmp/stdlib_new stdlib; fi
  echo "== $v"; grep "^fp8\|Worst" $out/bench-$v/log.txt
done
