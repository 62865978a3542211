#!/usr/bin/env bash
# Session 22 run 1: the whole conformance suite on the CUDA backend, each output against the
# interpreter too (session 21's never-run cases: the producer over two loops, the GEMV chains'
# work queue, the new FP8 cases; this session's: bf16 atomics, one-rounding conversions,
# cdiv's new lowering, NaN-first argmax, negative arange, shift promotion), then the sanitizers
# on the two-loop producer kernel. Pack: tools/gpu-check --bench at the session's final commit.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
TK_STDLIB_DIR=$PWD/stdlib timeout 420 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 \
  2>&1 | grep -v "^ok " | tee $out/conformance.txt
for tool in memcheck racecheck synccheck; do
  for ws in 0 1; do
    echo "-- $tool tma_store_waves warp_specialize=$ws M=200 N=136 K=96 on 5 programs"
    timeout 25 compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/tensor_cores.tk \
      --kernel tma_store_waves -D num_warps=4 -D num_stages=4 -D warp_specialize=$ws --backend=cuda --grid 5 \
      a=rand:f16:200x96 b=rand:f16:96x136 c=zeros:f16:200x136 M=200 N=136 K=96 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
