#!/usr/bin/env bash
# Session 20 run 4: the new conformance case tensor_cores.tma_store_waves (a persistent kernel
# with two loops over tiles, both by TMA loads and TMA stores to one matrix, their rings,
# staging buffers and exchanges sharing bytes) and the other tensor-core and FP8 cases on CUDA
# against the interpreter at a3c342b, then memcheck, racecheck and synccheck on its kernel.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
for filter in tensor_cores fp8; do
  TK_STDLIB_DIR=$PWD/stdlib timeout 200 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 \
    -k $filter 2>&1 | grep -v "^ok "
done | tee $out/conformance.txt
for tool in memcheck racecheck synccheck; do
  echo "-- $tool tma_store_waves M=200 N=136 K=96 on 5 programs"
  compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/tensor_cores.tk \
    --kernel tma_store_waves --backend=cuda --grid 5 a=rand:f16:200x96 b=rand:f16:96x136 c=zeros:f16:200x136 \
    M=200 N=136 K=96 2>&1 | tail -1
done 2>&1 | tee $out/sanitizer.txt
