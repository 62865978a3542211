#!/usr/bin/env bash
# Session 19 run 4: the whole conformance suite on CUDA against the interpreter at the kept code
# (TMA stores in kernels with atomics, the sign analysis; tensor_cores.tma_store_counted new),
# then memcheck, racecheck and synccheck on that case's kernel.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
TK_STDLIB_DIR=$PWD/stdlib timeout 400 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
for tool in memcheck racecheck synccheck; do
  echo "-- $tool tma_store_counted M=200 N=136 K=96 on 5 programs"
  compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/tensor_cores.tk \
    --kernel tma_store_counted --backend=cuda --grid 5 a=rand:f16:200x96 b=rand:f16:96x136 c=zeros:f16:200x136 \
    done=zeros:i32:1 M=200 N=136 K=96 2>&1 | tail -1
done 2>&1 | tee $out/sanitizer.txt
